package io.duraflow.cli;

import io.duraflow.config.Configuration;
import io.duraflow.plan.JobGraph;
import io.duraflow.plan.JobPlans;
import io.duraflow.rpc.proto.SubmitJobRequest;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** Options shared by run and demo. */
public final class JobOptions {
    @Parameters(index = "0", paramLabel = "JOB", description = "Job class, or an example: wordcount, tpch-q1, join")
    public String job;

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
                .setJobClass(JobAliases.resolve(job)).putAllParams(params).putAllConfig(config)
                .setParallelism(parallelism);
        if (restore != null) {
            request.setRestore(restore);
        }
        return request.build();
    }

    /** Builds the plan here first, so a bad job or parameter fails before anything is sent. */
    public JobGraph plan(Configuration config) {
        int p = parallelism > 0 ? parallelism : config.get(io.duraflow.config.ExecutionOptions.PARALLELISM_DEFAULT);
        try {
            return JobPlans.build(JobAliases.resolve(job), params, p);
        } catch (JobPlans.UnknownJobException e) {
            throw new CliException(e.getMessage() + " (examples: " + JobAliases.list() + ")");
        }
    }
}
