package io.duraflow.cli;

import io.duraflow.plan.JobGraph;
import io.duraflow.rpc.proto.JobResult;
import io.duraflow.rpc.proto.JobState;
import io.duraflow.rpc.proto.SubmitJobRequest;
import io.duraflow.rpc.proto.SubmitJobResponse;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "run", description = "Submits a job and follows it to the end (exit code 0 if it finished).")
public final class RunCommand implements Callable<Integer> {
    @CommandLine.ParentCommand
    Duraflow root;

    @CommandLine.Mixin
    JobOptions options = new JobOptions();

    @Option(names = "--detached", description = "Return after submission")
    boolean detached;

    @Option(names = "--embedded", description = "Run the job on a JobManager and TaskManagers started inside this"
            + " command (the fastest one-shot run; nothing stays running)")
    boolean embedded;

    @Option(names = "--taskmanagers", paramLabel = "N", defaultValue = "1", description = "With --embedded: how many"
            + " TaskManagers (default: ${DEFAULT-VALUE}), each with as many slots as the job's parallelism")
    int embeddedTaskManagers;

    @Option(names = "--from-savepoint", paramLabel = "PATH", description = "Start from a savepoint or a retained"
            + " checkpoint (its directory or _metadata), with another parallelism if you like")
    String fromSavepoint;

    @Option(names = "--claim", description = "With --from-savepoint: the job takes over the restored files and"
            + " deletes them once its first checkpoint subsumes them")
    boolean claim;

    @Option(names = "--no-claim", description = "With --from-savepoint (the default): the job never deletes or"
            + " depends on the restored files; its first checkpoint is full")
    boolean noClaim;

    @Option(names = "--allow-non-restored-state", description = "With --from-savepoint: drop (and log) the"
            + " state of operators the job no longer has instead of refusing it")
    boolean allowNonRestoredState;

    @Override
    public Integer call() throws Exception {
        options.restore = SavepointCommand.restore(fromSavepoint, claim, noClaim, allowNonRestoredState);
        if (embedded) {
            return runEmbedded();
        }
        return root.withClient((client, config) -> runJob(client, options, root.overrides,
                options.plan(config), detached));
    }

    private int runEmbedded() throws Exception {
        if (detached) {
            throw new CliException("--embedded runs the job and stops: it cannot be --detached");
        }
        if (embeddedTaskManagers < 1) {
            throw new CliException("--taskmanagers must be at least 1");
        }
        io.duraflow.config.Configuration config = root.configuration();
        JobGraph graph = options.plan(config);
        int slots = Math.max(1, options.parallelism > 0 ? options.parallelism
                : config.get(io.duraflow.config.ExecutionOptions.PARALLELISM_DEFAULT));
        java.util.Map<String, String> withSlots = new java.util.HashMap<>(config.toMap());
        withSlots.put(io.duraflow.config.TaskManagerOptions.SLOTS.key(), Integer.toString(slots));
        withSlots.put(io.duraflow.config.RestOptions.PORT.key(), "-1");  // a one-shot run serves no UI
        try (io.duraflow.embedded.InProcessCluster cluster = io.duraflow.embedded.InProcessCluster.start(
                io.duraflow.config.Configuration.fromMap(withSlots), embeddedTaskManagers);
                ClusterClient client = new ClusterClient(cluster.address())) {
            return runJob(client, options, root.overrides, graph, false);
        }
    }

    static String megabytes(long bytes) {
        return bytes < 1 << 20 ? String.format("%,d KB", (bytes + 1023) / 1024)
                : String.format("%.1f MB", bytes / (double) (1 << 20));
    }

    /** Submits the job whose plan the caller built with {@link JobOptions#plan}, and follows it unless detached. */
    public static int runJob(ClusterClient client, JobOptions options, Map<String, String> config, JobGraph graph,
            boolean detached) throws InterruptedException {
        SubmitJobRequest request = options.request(config);
        SubmitJobResponse submitted;
        try {
            if (options.jar != null) {
                long started = System.nanoTime();
                System.out.printf("Uploading %s (%s) to %s%n", options.jar.fileName(), megabytes(options.jar.size()),
                        client.address());
                submitted = client.submitJar(request, options.jar.path());
                System.out.printf("Uploaded and stored in %.1f s%n", (System.nanoTime() - started) / 1e9);
            } else {
                submitted = client.submit(request);
            }
        } catch (CliException e) {
            if (!(e.getCause() instanceof io.grpc.StatusRuntimeException status)
                    || status.getStatus().getCode() != io.grpc.Status.Code.ALREADY_EXISTS
                    || !String.valueOf(e.getMessage()).contains("already ended")) {
                throw e;
            }
            // The job ran before: say so, show that result, and exit as that run ended.
            System.out.println("duraflow: " + e.getMessage());
            JobResult previous = client.result(request.getJobId());
            new JobRunner(client, System.out).printResult(previous, graph, options.show.records);
            return previous.getStatus().getState() == JobState.JOB_FINISHED ? 0 : Duraflow.EXIT_JOB_FAILED;
        }
        System.out.println("Submitted job " + submitted.getJobId() + " (" + graph.jobName() + ", plan "
                + submitted.getFingerprint() + ") to " + client.address());
        if (detached) {
            System.out.println("Follow it with 'duraflow status " + submitted.getJobId() + "'");
            return 0;
        }
        JobRunner runner = new JobRunner(client, System.out);
        runner.follow(submitted.getJobId());
        JobResult result = client.result(submitted.getJobId());
        runner.printResult(result, graph, options.show.records);
        return result.getStatus().getState() == JobState.JOB_FINISHED ? 0 : Duraflow.EXIT_JOB_FAILED;
    }
}
