package io.duraflow.plan;

import io.duraflow.api.DuraflowJob;
import io.duraflow.api.InvalidJobParametersException;
import io.duraflow.api.JobBuilder;
import io.duraflow.api.JobParameters;
import io.duraflow.config.RuntimeMode;
import java.lang.reflect.InvocationTargetException;
import java.util.Map;

/** Builds a job's graph from its class name and parameters: the same way in every process. */
public final class JobPlans {
    private JobPlans() {}

    /** Thrown when a job class cannot be loaded or instantiated; the message says what to do. */
    public static final class UnknownJobException extends IllegalArgumentException {
        public UnknownJobException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    public static DuraflowJob instantiate(String jobClass) {
        return instantiate(Thread.currentThread().getContextClassLoader(), jobClass);
    }

    /** The job class {@code jobClass} loaded by {@code loader} (a job's jar, or the class path), instantiated. */
    public static DuraflowJob instantiate(ClassLoader loader, String jobClass) {
        Class<?> type;
        try {
            type = Class.forName(jobClass, true, loader);
        } catch (ClassNotFoundException | LinkageError e) {
            throw new UnknownJobException("unknown job class '" + jobClass
                    + "': check the name, or run the job from its jar ('duraflow run app.jar')", e);
        }
        if (!DuraflowJob.class.isAssignableFrom(type)) {
            throw new UnknownJobException("class " + jobClass + " is not a job: it must implement "
                    + DuraflowJob.class.getName(), null);
        }
        try {
            return (DuraflowJob) type.getDeclaredConstructor().newInstance();
        } catch (NoSuchMethodException e) {
            throw new UnknownJobException("job class " + jobClass + " needs a public no-argument constructor", e);
        } catch (InvocationTargetException e) {
            throw new UnknownJobException("job class " + jobClass + " failed in its constructor: " + e.getCause(), e);
        } catch (ReflectiveOperationException e) {
            throw new UnknownJobException("cannot create job " + jobClass + ": " + e, e);
        }
    }

    /**
     * Builds and compiles the plan; parameters the job does not know, and plans that make no
     * sense, are {@link InvalidJobParametersException}s / IllegalArgumentExceptions with a
     * one-line message.
     */
    public static JobGraph build(String jobClass, Map<String, String> params, int defaultParallelism) {
        return build(jobClass, params, defaultParallelism, RuntimeMode.AUTOMATIC);
    }

    /** Like {@link #build(String, Map, int)}, in the given {@code execution.runtime-mode}. */
    public static JobGraph build(String jobClass, Map<String, String> params, int defaultParallelism, RuntimeMode mode) {
        return build(Thread.currentThread().getContextClassLoader(), jobClass, params, defaultParallelism, mode);
    }

    /**
     * Like {@link #build(String, Map, int, RuntimeMode)}, with the job's classes from {@code
     * loader}, which is the thread's context class loader while the job's {@code build} runs.
     */
    public static JobGraph build(ClassLoader loader, String jobClass, Map<String, String> params,
            int defaultParallelism, RuntimeMode mode) {
        Thread thread = Thread.currentThread();
        ClassLoader before = thread.getContextClassLoader();
        thread.setContextClassLoader(loader);
        try {
            DuraflowJob job = instantiate(loader, jobClass);
            JobParameters parameters = new JobParameters(params);
            JobBuilder builder = new JobBuilder(job.getClass().getSimpleName());
            job.build(builder, parameters);
            parameters.checkAllUsed(job.getClass().getSimpleName());
            return JobGraph.compile(builder.plan(), defaultParallelism, mode);
        } finally {
            thread.setContextClassLoader(before);
        }
    }
}
