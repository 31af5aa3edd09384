package io.duraflow.bench;

import io.duraflow.cli.ClusterClient;
import io.duraflow.cli.JobRunner;
import io.duraflow.cli.LocalCluster;
import io.duraflow.rpc.proto.CheckpointSummary;
import io.duraflow.rpc.proto.JobState;
import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.rpc.proto.SubmitJobRequest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Duraflow's side of {@link NexmarkBenchmark}: {@link NexmarkDigestJob} on a local cluster of
 * separate processes (1 JobManager, 1 TaskManager with enough slots for the largest query's
 * tasks, Duraflow's class path only), one query at a time on the same cluster, streaming, a
 * checkpoint every second, on the heap or in RocksDB (incremental), no restarts: a failure
 * fails the benchmark.
 *
 * <p>Figures: run time from the job's status (submission to end), CPU of the TaskManager
 * process from {@code /proc} ({@link DuraflowStreamingRuns#taskManagerCpuNanos}), checkpoints from
 * the JobMaster's checkpoint list polled while the job runs, the digest from the files the sink
 * subtasks write.
 */
final class DuraflowNexmarkRuns implements AutoCloseable {
    /** Slots of the TaskManager: q4, q5 and q7 have three vertices of 2 tasks each, and Duraflow shares no slots. */
    static final int SLOTS = 6;

    private final DuraflowStreamingRuns cluster;
    private final int parallelism;
    private final boolean rocksDb;
    private final Path digests;
    private int jobs;

    private DuraflowNexmarkRuns(DuraflowStreamingRuns cluster, int parallelism, boolean rocksDb) throws IOException {
        this.cluster = cluster;
        this.parallelism = parallelism;
        this.rocksDb = rocksDb;
        this.digests = Files.createDirectories(cluster.workDir().resolve("nexmark-digests"));
    }

    static DuraflowNexmarkRuns start(int parallelism, boolean rocksDb) throws Exception {
        // Tiered compilation as production TaskManagers have it (and Flink's JVM): these jobs run long
        // enough for C2 to pay off.
        return new DuraflowNexmarkRuns(DuraflowStreamingRuns.start(parallelism, Map.of(), 1,
                Map.of("taskmanager.slots", Integer.toString(SLOTS)), LocalCluster.TIERED_TASK_MANAGERS), parallelism,
                rocksDb);
    }

    private Map<String, String> jobConfig() {
        Map<String, String> config = new LinkedHashMap<>();
        config.put("execution.runtime-mode", "streaming");
        config.put("execution.checkpointing.interval", "1s");
        config.put("execution.checkpointing.dir", cluster.checkpointDir().toString());
        config.put("state.backend.type", rocksDb ? "rocksdb" : "heap");
        if (rocksDb) {
            config.put("state.backend.incremental", "true");
        }
        config.put("restart-strategy.type", "none");
        return config;
    }

    /** Runs {@code query} over {@code settings}' events and measures it. */
    NexmarkRun run(String query, NexmarkBenchmark.Settings settings) throws Exception {
        String jobId = "nexmark-" + query + "-" + (rocksDb ? "rocksdb-" : "heap-") + (++jobs);
        Path dir = Files.createDirectories(digests.resolve(jobId));
        Map<String, String> params = new LinkedHashMap<>(settings.params());
        params.put("query", query);
        params.put("digest-dir", dir.toString());
        ClusterClient client = cluster.client();
        long cpuBefore = cluster.taskManagerCpuNanos();
        client.submit(SubmitJobRequest.newBuilder().setJobId(jobId).setJobClass(NexmarkDigestJob.class.getName())
                .putAllParams(params).putAllConfig(jobConfig()).setParallelism(parallelism).build());
        Map<Long, CheckpointSummary> checkpoints = new TreeMap<>();
        JobStatus status;
        while (true) {
            status = client.status(jobId);
            if (JobRunner.isTerminal(status.getState())) {
                break;
            }
            CheckpointTally.poll(client, jobId, checkpoints);
            Thread.sleep(DuraflowStreamingRuns.POLL.toMillis());
        }
        long cpuAfter = cluster.taskManagerCpuNanos();
        CheckpointTally.poll(client, jobId, checkpoints); // the last ones, if the checkpoint list is still there
        if (status.getState() != JobState.JOB_FINISHED) {
            throw new IllegalStateException("Duraflow's " + query + " ended " + status.getState() + ": "
                    + status.getFailure() + " (logs: " + cluster.workDir().resolve("log") + ")");
        }
        CheckpointTally tally = CheckpointTally.of(checkpoints.values());
        tally.printFailures("duraflow " + query);
        long submitted = status.getSubmittedAtMs();
        long results = 0;
        long hashSum = 0;
        long first = Long.MAX_VALUE;
        long last = 0;
        int files = 0;
        try (DirectoryStream<Path> written = Files.newDirectoryStream(dir, "digest-*.txt")) {
            for (Path file : written) {
                String[] fields = Files.readString(file, StandardCharsets.UTF_8).trim().split(" ");
                results += Long.parseLong(fields[0]);
                hashSum += Long.parseUnsignedLong(fields[1], 16);
                long firstAt = Long.parseLong(fields[2]);
                if (firstAt > 0) {
                    first = Math.min(first, firstAt);
                    last = Math.max(last, Long.parseLong(fields[3]));
                }
                files++;
            }
        }
        if (files != parallelism) {
            throw new IllegalStateException("Duraflow's " + query + ": " + files + " sink subtasks wrote a digest, not "
                    + parallelism);
        }
        return new NexmarkRun(query, settings.events(), status.getEndedAtMs() - submitted,
                cpuBefore < 0 || cpuAfter < 0 ? -1 : cpuAfter - cpuBefore, tally.completed(), tally.failed(),
                tally.averageMillis(), results, hashSum,
                first == Long.MAX_VALUE ? -1 : first - submitted, first == Long.MAX_VALUE ? -1 : last - submitted);
    }

    /** The cluster's work directory (logs, pid files), for profiling. */
    Path workDir() {
        return cluster.workDir();
    }

    @Override
    public void close() throws Exception {
        cluster.close();
    }
}
