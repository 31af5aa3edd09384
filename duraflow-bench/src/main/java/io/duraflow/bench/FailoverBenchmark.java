package io.duraflow.bench;

import io.duraflow.cli.ClusterClient;
import io.duraflow.cli.JobRunner;
import io.duraflow.cli.LocalCluster;
import io.duraflow.config.Configuration;
import io.duraflow.config.Durations;
import io.duraflow.examples.WordCount;
import io.duraflow.fs.FsPath;
import io.duraflow.fs.LocalFileSystem;
import io.duraflow.ha.HighAvailabilityServices;
import io.duraflow.ha.LeaderInfo;
import io.duraflow.ha.LeaderRetrieval;
import io.duraflow.jobstore.FileSystemJobResultStore;
import io.duraflow.jobstore.JobOutcome;
import io.duraflow.jobstore.JobResultEntry;
import io.duraflow.rpc.proto.JobState;
import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.rpc.proto.SubmitJobRequest;
import io.duraflow.rpc.proto.VertexStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * JobManager failover with ZooKeeper: a local cluster of a ZooKeeper server, two JobManagers and
 * two TaskManagers runs a long job; the leader is killed with SIGKILL, and the benchmark prints
 * the time until the standby published its leadership and until the job's tasks run again.
 * Then the cost of writing a job result (DIRTY entry, fsynced) over 1,000 entries.
 *
 * <pre>
 *   ./mvnw -q -DskipTests -Pbench -Dbench.main=io.duraflow.bench.FailoverBenchmark -pl duraflow-bench -am package
 *   (-Dbench.session-timeout=4s)
 * </pre>
 */
public final class FailoverBenchmark {
    public static void main(String[] args) throws Exception {
        String sessionTimeout = System.getProperty("bench.session-timeout", "4s");
        Path workDir = Files.createTempDirectory("duraflow-failover-");
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("high-availability.zookeeper.session-timeout", sessionTimeout);
        settings.put("heartbeat.interval", "500ms");
        settings.put("heartbeat.timeout", "5s");
        LocalCluster cluster = new LocalCluster(workDir, settings, line -> {});
        System.out.printf("JobManager failover benchmark: ZooKeeper session timeout %s, 2 JobManagers, 2 TaskManagers%n",
                sessionTimeout);
        try {
            cluster.start(2, 2, 0, Duration.ofSeconds(60));
            Configuration config = cluster.clientConfiguration();
            try (HighAvailabilityServices ha = HighAvailabilityServices.create(config);
                    ClusterClient client = new ClusterClient(config, "", Duration.ofSeconds(60))) {
                LeaderRetrieval retrieval = ha.createLeaderRetrieval("");
                List<LeaderInfo> leaders = Collections.synchronizedList(new ArrayList<>());
                retrieval.start(leader -> {
                    if (leader != null) {
                        leaders.add(leader);
                    }
                });
                String jobId = "failover-bench";
                client.submit(SubmitJobRequest.newBuilder().setJobId(jobId).setJobClass(WordCount.class.getName())
                        .putAllParams(Map.of("words", "2000000000")).setParallelism(2).build());
                awaitRunningTasks(client, jobId, Long.MAX_VALUE);
                LeaderInfo leader = retrieval.awaitLeader(Duration.ofSeconds(10));
                ProcessHandle leaderProcess = cluster.processListeningOn(leader.address());
                int known = leaders.size();
                long killedAt = System.nanoTime();
                leaderProcess.destroyForcibly();
                while (leaders.size() == known || leaders.get(leaders.size() - 1).equals(leader)) {
                    Thread.sleep(5);
                }
                long leaderMs = (System.nanoTime() - killedAt) / 1_000_000;
                long runningMs = awaitRunningTasks(client, jobId, killedAt);
                System.out.printf("SIGKILL of the leader -> standby leads and published: %,d ms (target <= session"
                        + " timeout + 1 s = %,d ms)%n", leaderMs, Durations.parse(sessionTimeout).toMillis() + 1_000);
                System.out.printf("SIGKILL of the leader -> the job's tasks run again:   %,d ms%n", runningMs);
                client.cancel(jobId);
                retrieval.close();
            }
        } finally {
            cluster.stop();
        }
        resultWriteCost(workDir.resolve("jrs-bench"));
    }

    /** Waits until the job (recovered or not) has running tasks; returns ms since {@code since}. */
    private static long awaitRunningTasks(ClusterClient client, String jobId, long since) throws InterruptedException {
        while (true) {
            JobStatus status = client.status(jobId);
            int running = 0;
            for (VertexStatus vertex : status.getVerticesList()) {
                running += vertex.getRunning();
            }
            if (status.getState() == JobState.JOB_RUNNING && running > 0) {
                return since == Long.MAX_VALUE ? 0 : (System.nanoTime() - since) / 1_000_000;
            }
            if (JobRunner.isTerminal(status.getState())) {
                throw new IllegalStateException("the job ended: " + status.getState() + " " + status.getFailure());
            }
            Thread.sleep(10);
        }
    }

    private static void resultWriteCost(Path directory) throws Exception {
        FileSystemJobResultStore store = new FileSystemJobResultStore(LocalFileSystem.INSTANCE, FsPath.of(directory), false, null, Clock.systemUTC());
        int entries = 1_000;
        long[] dirtyMicros = new long[entries];
        long[] cleanMicros = new long[entries];
        for (int i = 0; i < entries; i++) {
            JobResultEntry entry = new JobResultEntry("bench-" + i, "bench", "Bench", JobOutcome.FINISHED, 0, 1, "", 0,
                    Map.of("words", "10"), Map.of(), List.of(), List.of());
            long start = System.nanoTime();
            store.createDirtyResult(entry);
            dirtyMicros[i] = (System.nanoTime() - start) / 1_000;
            start = System.nanoTime();
            store.markResultAsClean(entry.jobId());
            cleanMicros[i] = (System.nanoTime() - start) / 1_000;
        }
        java.util.Arrays.sort(dirtyMicros);
        java.util.Arrays.sort(cleanMicros);
        System.out.printf("job result write (DIRTY, fsynced), %d entries: median %,d us, p99 %,d us%n", entries,
                dirtyMicros[entries / 2], dirtyMicros[entries * 99 / 100]);
        System.out.printf("job result commit (CLEAN), %d entries:        median %,d us, p99 %,d us%n", entries,
                cleanMicros[entries / 2], cleanMicros[entries * 99 / 100]);
    }
}
