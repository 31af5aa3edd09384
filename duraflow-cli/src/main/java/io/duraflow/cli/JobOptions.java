package io.duraflow.cli;

import io.duraflow.config.Configuration;
import io.duraflow.plan.JobGraph;
import io.duraflow.plan.JobPlans;
import io.duraflow.artifact.JobClassLoader;
import io.duraflow.artifact.JobJar;
import io.duraflow.config.JobManagerOptions;
import io.duraflow.rpc.proto.JobArtifact;
import io.duraflow.rpc.proto.SubmitJobRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** Options shared by run and demo. */
public final class JobOptions {
    @Parameters(index = "0", paramLabel = "JOB", description = "A job's jar (app.jar), a job class on the class"
            + " path, or an example: wordcount, tpch-q1, join")
    public String job;

    @Option(names = "--class", paramLabel = "NAME", description = "With a jar: the job class in it (default: the"
            + " manifest's Duraflow-Job-Class, or the only job in the jar)")
    String jobClass;

    /** The job's jar, once {@link #plan} found {@link #job} to be one; null for a class on the class path. */
    JobJar jar;
    /** The job class: in the jar, or on the class path; set by {@link #plan}. */
    private String resolvedClass;

    @Option(names = "--param", paramLabel = "key=value", description = "A job parameter (repeatable)")
    public Map<String, String> params = new LinkedHashMap<>();

    @Option(names = "--parallelism", paramLabel = "N", description = "Parallelism of sources, upper bound of"
            + " the rest (default: parallelism.default)")
    public int parallelism;

    @Option(names = "--job-id", paramLabel = "ID", description = "Job id to use (default: a random one)")
    String jobId;

    /** What the job restores ({@code run --from-savepoint}); null: empty state. */
    io.duraflow.rpc.proto.RestoreSettingsData restore;

    @CommandLine.Mixin
    Duraflow.ShowOption show = new Duraflow.ShowOption();

    /**
     * The submission; {@code config} (the command's {@code -D} overrides) becomes the job's own
     * configuration, which the JobManager merges over its cluster's, so that e.g. {@code -D
     * execution.checkpointing.interval=1s} applies to this job.
     */
    SubmitJobRequest request(Map<String, String> config) {
        if (parallelism < 0) {
            throw new CliException("--parallelism must be at least 1");
        }
        // The id is chosen here, so a submission retried during a failover cannot start the job twice.
        String id = jobId != null ? jobId : java.util.UUID.randomUUID().toString().replace("-", "").substring(0, 16);
        SubmitJobRequest.Builder request = SubmitJobRequest.newBuilder().setJobId(id)
                .setJobClass(resolvedClass != null ? resolvedClass : JobAliases.resolve(job)).putAllParams(params)
                .putAllConfig(config).setParallelism(parallelism);
        if (jar != null) {
            request.setArtifact(JobArtifact.newBuilder().setSha256(jar.sha256()).setFileName(jar.fileName())
                    .setSize(jar.size()));
        }
        if (restore != null) {
            request.setRestore(restore);
        }
        return request.build();
    }

    /**
     * Builds the plan here first, so a bad job or parameter fails before anything is sent; a jar is
     * checked and its job class found first ({@link JobJar}).
     */
    public JobGraph plan(Configuration config) {
        int p = parallelism > 0 ? parallelism : config.get(io.duraflow.config.ExecutionOptions.PARALLELISM_DEFAULT);
        if (isJar(job)) {
            return planFromJar(config, p);
        }
        if (jobClass != null) {
            throw new CliException("--class goes with a jar: duraflow run app.jar --class " + jobClass);
        }
        try {
            resolvedClass = JobAliases.resolve(job);
            return JobPlans.build(resolvedClass, params, p);
        } catch (JobPlans.UnknownJobException e) {
            throw new CliException(e.getMessage() + " (examples: " + JobAliases.list() + ")");
        }
    }

    /** Whether JOB names a jar: it ends with .jar, or is a file. */
    static boolean isJar(String job) {
        return job.toLowerCase(java.util.Locale.ROOT).endsWith(".jar") || Files.isRegularFile(Path.of(job));
    }

    private JobGraph planFromJar(Configuration config, int parallelism) {
        JobClassLoader loader = null;
        try {
            jar = JobJar.open(Path.of(job));
            long max = config.get(JobManagerOptions.ARTIFACT_MAX_SIZE).bytes();
            if (jar.size() > max) {
                throw new CliException("jar " + job + " has " + jar.size() + " bytes, above "
                        + JobManagerOptions.ARTIFACT_MAX_SIZE.key() + " (" + max + " bytes): make it smaller (leave"
                        + " duraflow-api out of it, it is provided) or raise the option");
            }
            loader = new JobClassLoader("client", jar.path(), JobOptions.class.getClassLoader());
            resolvedClass = jar.jobClass(loader, jobClass);
            return JobPlans.build(loader, resolvedClass, params, parallelism,
                    config.get(io.duraflow.config.ExecutionOptions.RUNTIME_MODE));
        } catch (JobJar.JobJarException e) {
            throw new CliException(e.getMessage());
        } catch (io.duraflow.api.InvalidJobParametersException e) {
            throw e;
        } catch (RuntimeException | LinkageError e) {
            if (e instanceof CliException cli) {
                throw cli;
            }
            throw new CliException("job " + resolvedClass + " in jar " + jar.fileName() + " failed to build its plan: "
                    + e, 1, e);
        }
    }
}
