package io.duraflow.bench;

import io.duraflow.cli.ClusterClient;
import io.duraflow.cli.JobRunner;
import io.duraflow.cli.LocalCluster;
import io.duraflow.cli.kafka.KafkaKeyedCount;
import io.duraflow.rpc.proto.CheckpointSummary;
import io.duraflow.rpc.proto.JobState;
import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.rpc.proto.SubmitJobRequest;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Duraflow's side of {@link KafkaBenchmark}: {@link KafkaKeyedCount} on a local cluster of
 * separate processes (1 JobManager, 1 TaskManager with tiered compilation, Duraflow's class path
 * only), streaming, a checkpoint every second, heap state, no restarts: a failure fails the
 * benchmark. Figures: run time from the job's status (submission to end), CPU of the TaskManager
 * process from {@code /proc}, checkpoints from the JobMaster's list polled while the job runs.
 */
final class DuraflowKafkaRuns implements KafkaEngine {
    /** Slots of the TaskManager: Duraflow shares no slots, and the job has at most 3 vertices of 2 tasks. */
    static final int SLOTS = 6;
    static final Duration START_TIMEOUT = Duration.ofMinutes(2);

    private final DuraflowStreamingRuns cluster;
    private final String bootstrap;
    private final int parallelism;
    /** The unbounded job running: its checkpoints and the TaskManager's CPU time at its start. */
    private final Map<Long, CheckpointSummary> checkpoints = new TreeMap<>();
    private long startCpuNanos;
    private long startMillis;

    private DuraflowKafkaRuns(DuraflowStreamingRuns cluster, String bootstrap, int parallelism) {
        this.cluster = cluster;
        this.bootstrap = bootstrap;
        this.parallelism = parallelism;
    }

    /** Starts the cluster; {@code extraJvmOptions} go to the TaskManager (e.g. a flight recording), may be empty. */
    static DuraflowKafkaRuns start(String bootstrap, int parallelism, String extraJvmOptions) throws Exception {
        String jvmOptions = (LocalCluster.TIERED_TASK_MANAGERS + " " + extraJvmOptions).trim();
        return new DuraflowKafkaRuns(DuraflowStreamingRuns.start(parallelism, Map.of(), 1,
                Map.of("taskmanager.slots", Integer.toString(SLOTS)), jvmOptions), bootstrap, parallelism);
    }

    @Override
    public String name() {
        return "duraflow";
    }

    private SubmitJobRequest request(String jobName, String input, String output, String prefix, boolean bounded) {
        Map<String, String> params = new LinkedHashMap<>();
        params.put("bootstrap", bootstrap);
        params.put("input", input);
        params.put("output", output);
        params.put("delivery", "EXACTLY_ONCE");
        params.put("prefix", prefix);
        params.put("bounded", Boolean.toString(bounded));
        Map<String, String> config = new LinkedHashMap<>();
        config.put("execution.runtime-mode", "streaming");
        config.put("execution.checkpointing.interval", "1s");
        config.put("execution.checkpointing.dir", cluster.checkpointDir().toString());
        config.put("state.backend.type", "heap");
        config.put("restart-strategy.type", "none");
        return SubmitJobRequest.newBuilder().setJobId(jobName).setJobClass(KafkaKeyedCount.class.getName())
                .putAllParams(params).putAllConfig(config).setParallelism(parallelism).build();
    }

    @Override
    public KafkaRun runBounded(String jobName, String input, String output, String prefix) throws Exception {
        ClusterClient client = cluster.client();
        long cpuBefore = cluster.taskManagerCpuNanos();
        Map<Long, CheckpointSummary> seen = new TreeMap<>();
        client.submit(request(jobName, input, output, prefix, true));
        JobStatus status = awaitEnd(client, jobName, seen);
        long cpuAfter = cluster.taskManagerCpuNanos();
        if (status.getState() != JobState.JOB_FINISHED) {
            throw failed(jobName, status);
        }
        return figures(status.getEndedAtMs() - status.getSubmittedAtMs(),
                cpuBefore < 0 || cpuAfter < 0 ? -1 : cpuAfter - cpuBefore, seen);
    }

    @Override
    public void start(String jobName, String input, String output, String prefix) throws Exception {
        ClusterClient client = cluster.client();
        checkpoints.clear();
        startCpuNanos = cluster.taskManagerCpuNanos();
        startMillis = System.currentTimeMillis();
        client.submit(request(jobName, input, output, prefix, false));
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (checkpoints.values().stream().noneMatch(c -> c.getStatus().equals("COMPLETED"))) {
            JobStatus status = client.status(jobName);
            if (JobRunner.isTerminal(status.getState())) {
                throw failed(jobName, status);
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("Duraflow's " + jobName + " completed no checkpoint within "
                        + START_TIMEOUT.toSeconds() + " s (logs: " + cluster.workDir().resolve("log") + ")");
            }
            CheckpointTally.poll(client, jobName, checkpoints);
            Thread.sleep(DuraflowStreamingRuns.POLL.toMillis());
        }
    }

    @Override
    public KafkaRun cancel(String jobName) throws Exception {
        ClusterClient client = cluster.client();
        CheckpointTally.poll(client, jobName, checkpoints);
        long cpu = cluster.taskManagerCpuNanos();
        long millis = System.currentTimeMillis() - startMillis;
        JobStatus status = client.status(jobName);
        if (JobRunner.isTerminal(status.getState())) {
            throw failed(jobName, status);
        }
        client.cancel(jobName);
        awaitEnd(client, jobName, new TreeMap<>());
        return figures(millis, cpu < 0 || startCpuNanos < 0 ? -1 : cpu - startCpuNanos, checkpoints);
    }

    private static JobStatus awaitEnd(ClusterClient client, String jobName, Map<Long, CheckpointSummary> seen)
            throws InterruptedException {
        while (true) {
            JobStatus status = client.status(jobName);
            if (JobRunner.isTerminal(status.getState())) {
                CheckpointTally.poll(client, jobName, seen); // the last ones, if the checkpoint list is still there
                return status;
            }
            CheckpointTally.poll(client, jobName, seen);
            Thread.sleep(DuraflowStreamingRuns.POLL.toMillis());
        }
    }

    private IllegalStateException failed(String jobName, JobStatus status) {
        return new IllegalStateException("Duraflow's " + jobName + " ended " + status.getState() + ": "
                + status.getFailure() + " (logs: " + cluster.workDir().resolve("log") + ")");
    }

    private static KafkaRun figures(long millis, long cpuNanos, Map<Long, CheckpointSummary> checkpoints) {
        CheckpointTally tally = CheckpointTally.of(checkpoints.values());
        tally.printFailures("duraflow");
        return new KafkaRun(millis, cpuNanos, tally.completed(), tally.failed(), tally.averageMillis());
    }

    @Override
    public void close() throws Exception {
        cluster.close();
    }
}
