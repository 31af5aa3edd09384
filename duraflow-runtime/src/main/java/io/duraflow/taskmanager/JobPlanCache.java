package io.duraflow.taskmanager;

import io.duraflow.mailbox.Mailbox;

import io.duraflow.config.Configuration;
import io.duraflow.config.ExecutionOptions;
import io.duraflow.config.RuntimeMode;
import io.duraflow.taskmanager.task.Task;
import io.duraflow.plan.JobGraph;
import io.duraflow.rpc.proto.TaskDeployment;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * The plans of the jobs whose tasks this TaskManager runs, by job id. A plan is built once per
 * job on a plan-build thread, never on the mailbox or a gRPC thread, because building runs the
 * job's build() (user code), which may be slow or hang. A build that takes longer than
 * {@code taskmanager.plan-build.timeout} fails, and its thread is interrupted, with an error that
 * names the job class; a failed build is forgotten so that a later deployment tries again.
 *
 * <p>A job submitted from a jar is built with its classes ({@link TaskManagerJars}), fetched from
 * the leader on the plan-build thread first if this TaskManager has not got them; they are let go
 * when the job ended here ({@link #forget}).
 *
 * <p>Mailbox only: the futures complete on other threads, but the map is touched only in mails.
 */
final class JobPlanCache {
    private final Mailbox mailbox;
    private final Executor planBuilds;
    private final TaskExecutorServices.PlanBuilder planBuilder;
    private final long timeoutMs;
    /** Built, or being built; failed ones are evicted. */
    private final Map<String, CompletableFuture<JobGraph>> plans = new LinkedHashMap<>();
    /**
     * Jobs whose cached streaming plan a task already runs. Streaming functions keep per-task
     * fields (state handles set in open()), which tasks sharing one function object would
     * overwrite for each other: only the first task of a streaming job gets the cached plan, every
     * other task a plan of its own.
     */
    private final java.util.Set<String> streamingPlansInUse = new java.util.HashSet<>();
    /** The class loaders of jobs submitted from a jar. */
    private final TaskManagerJars jars;
    /** The leader's client, to fetch jars from (mailbox only). */
    private final java.util.function.Supplier<JobManagerClient> client;

    JobPlanCache(Mailbox mailbox, Executor planBuilds, TaskExecutorServices.PlanBuilder planBuilder, long timeoutMs,
            TaskManagerJars jars, java.util.function.Supplier<JobManagerClient> client) {
        this.mailbox = mailbox;
        this.planBuilds = planBuilds;
        this.planBuilder = planBuilder;
        this.timeoutMs = timeoutMs;
        this.jars = jars;
        this.client = client;
    }

    /**
     * Builds the deployment's plan on this (plan-build) thread, with the job's classes: from its
     * jar (fetched first if this TaskManager has none), else from the class path.
     */
    private JobGraph build(TaskDeployment deployment, JobManagerClient leader) throws java.io.IOException {
        RuntimeMode mode = Configuration.fromMap(deployment.getConfigMap()).get(ExecutionOptions.RUNTIME_MODE);
        ClassLoader loader = jars.loader(deployment, leader);
        Thread thread = Thread.currentThread();
        ClassLoader before = thread.getContextClassLoader();
        thread.setContextClassLoader(loader);
        try {
            return planBuilder.build(deployment.getJobClass(), deployment.getParamsMap(),
                    deployment.getDefaultParallelism(), mode);
        } finally {
            thread.setContextClassLoader(before);
        }
    }

    /** The class loader of a job whose plan was built from its jar here, or null (the class path). */
    ClassLoader jobClassLoader(String jobId) {
        return jars.loaded(jobId);
    }

    /** The plan of the deployment's job; the future may complete on any thread. */
    CompletableFuture<JobGraph> plan(TaskDeployment deployment) {
        mailbox.assertRunningInMailbox();
        String jobId = deployment.getAttempt().getJobId();
        // Not thenCompose: it would wrap the build's error, whose message the task's report carries.
        CompletableFuture<JobGraph> plan = new CompletableFuture<>();
        // The build completes on its thread; the set is decided on in the mailbox.
        shared(deployment).whenComplete((graph, error) -> mailbox.execute(() -> {
            if (error != null) {
                plan.completeExceptionally(error);
            } else if (graph.mode() != RuntimeMode.STREAMING || streamingPlansInUse.add(jobId)) {
                plan.complete(graph);
            } else {
                ownPlan(deployment).whenComplete((own, ownError) -> {
                    if (ownError != null) {
                        plan.completeExceptionally(new IllegalStateException("building the plan of job class "
                                + deployment.getJobClass() + " for task " + io.duraflow.rpc.Rpc.describe(
                                        deployment.getAttempt()) + " failed: " + Task.oneLine(ownError), ownError));
                    } else {
                        plan.complete(own);
                    }
                });
            }
        }));
        return plan;
    }

    /** A plan for one streaming task alone (see {@link #streamingPlansInUse}); its job built fine once already. */
    private CompletableFuture<JobGraph> ownPlan(TaskDeployment deployment) {
        JobManagerClient leader = client.get();
        return CompletableFuture.supplyAsync(() -> {
            try {
                return build(deployment, leader);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }, planBuilds).orTimeout(timeoutMs, java.util.concurrent.TimeUnit.MILLISECONDS);
    }

    private CompletableFuture<JobGraph> shared(TaskDeployment deployment) {
        String jobId = deployment.getAttempt().getJobId();
        CompletableFuture<JobGraph> known = plans.get(jobId);
        if (known != null) {
            return known;
        }
        String jobClass = deployment.getJobClass();
        CompletableFuture<JobGraph> plan = new CompletableFuture<>();
        plans.put(jobId, plan);
        CompletableFuture<Thread> builder = new CompletableFuture<>();
        JobManagerClient leader = client.get();
        planBuilds.execute(() -> {
            builder.complete(Thread.currentThread());
            try {
                // The job's mode from the configuration it was submitted with, as the JobManager
                // built it: the fingerprint check below fails if they ever differ.
                plan.complete(build(deployment, leader));
            } catch (Throwable t) {
                plan.completeExceptionally(new IllegalStateException("building the plan of job class " + jobClass
                        + " failed: " + Task.oneLine(t), t));
            }
        });
        Mailbox.Cancellable timeout = mailbox.schedule(() -> {
            if (plan.completeExceptionally(new IllegalStateException("building the plan of job class " + jobClass
                    + " did not finish within " + timeoutMs + " ms (taskmanager.plan-build.timeout);"
                    + " make sure its build() does not block"))) {
                builder.thenAccept(Thread::interrupt);
            }
        }, timeoutMs);
        plan.whenComplete((graph, error) -> mailbox.execute(() -> {
            timeout.cancel();
            if (error != null) {
                plans.remove(jobId, plan);
            }
        }));
        return plan;
    }

    /** The job ended here (its partitions were released): its plan and its classes are not needed any more. */
    void forget(String jobId) {
        mailbox.assertRunningInMailbox();
        plans.remove(jobId);
        streamingPlansInUse.remove(jobId);
        planBuilds.execute(() -> jars.release(jobId));
    }

    /** The JobManager is gone: the next one deploys afresh. */
    void clear() {
        mailbox.assertRunningInMailbox();
        plans.clear();
        streamingPlansInUse.clear();
    }
}
