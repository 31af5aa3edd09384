package io.duraflow.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.duraflow.examples.nexmark.NexmarkConfig;
import io.duraflow.examples.nexmark.NexmarkExpected;
import io.duraflow.examples.nexmark.NexmarkQueries;
import io.duraflow.ha.LeaderInfo;
import io.duraflow.rpc.proto.CheckpointSummary;
import io.duraflow.rpc.proto.JobCheckpoints;
import io.duraflow.rpc.proto.JobResult;
import io.duraflow.rpc.proto.JobState;
import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.rpc.proto.SubmitJobRequest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Nexmark's windowed queries through real failures: ZooKeeper, two JobManagers and two
 * TaskManagers as processes, checkpoints every 300 ms, exactly-once file output. While the query
 * runs, a TaskManager is SIGKILLed (the job restores its latest checkpoint on the one left and a
 * new one), then the leader (the standby takes over); the committed results must equal the query
 * computed directly over the generated events ({@link NexmarkExpected}). Sliding windows run on
 * RocksDB with file merging, sessions on the heap (the job's configuration says which).
 *
 * <p>The queries share one cluster: the killed TaskManager is replaced during the test, the
 * killed leader by a new standby before the next one, so each query starts with a leader, a
 * standby that never led and two live TaskManagers.
 */
class NexmarkFailoverIT {
    @RegisterExtension
    static final LogsOnFailure LOGS = new LogsOnFailure();

    private static final long EVENTS = 40_000;
    private static final long EVENT_RATE = 1_000;
    private static final long OUT_OF_ORDERNESS_MS = 30;
    private static final Duration WINDOW = Duration.ofSeconds(2);
    private static final Duration SLIDE = Duration.ofMillis(500);
    private static final Duration GAP = Duration.ofMillis(300);
    /** Events per second of wall-clock time: about 10 s of input, so both kills come mid-run. */
    private static final long RATE = 4_000;
    private static final Duration JOB_TIMEOUT = Duration.ofMinutes(2);
    private static final Duration POLL = Duration.ofMillis(100);

    @TempDir
    static Path sharedDir;

    @TempDir
    Path tempDir;

    private static HaCluster cluster;

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = HaCluster.start(LOGS.watch(sharedDir.resolve("cluster")), ZooKeeperServer.shared(), 2, 2,
                Map.of("taskmanager.slots", "2"));
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    /** A standby in place of the leader the last query killed; the TaskManager it killed was replaced then. */
    @BeforeEach
    void standby() throws Exception {
        while (cluster.liveJobManagers().size() < 2) {
            cluster.startJobManager().address();
        }
        cluster.awaitRegisteredTaskManagers(2, HaCluster.STARTUP_TIMEOUT);
        await("no job runs").atMost(JOB_TIMEOUT).pollInterval(POLL).ignoreException(CliException.class)
                .until(() -> cluster.overview().getRunningJobs() == 0);
    }

    @ParameterizedTest
    @CsvSource({"q5,rocksdb,true", "q11,heap,false"})
    void aTaskManagerAndTheLeaderKilledMidRunLeaveTheResultsExact(String query, String backend, boolean fileMerging,
            TestInfo test) throws Exception {
        killATaskManagerAndTheLeader(query, backend, fileMerging, test);
    }

    /** The other queries, in the long run ({@code ./mvnw verify -Plong}). */
    @Tag("long")
    @ParameterizedTest
    @CsvSource({"q3,rocksdb,true", "q4,heap,false", "q7,heap,true", "q8,rocksdb,false"})
    void theJoinsAndTumblingWindowsToo(String query, String backend, boolean fileMerging, TestInfo test)
            throws Exception {
        killATaskManagerAndTheLeader(query, backend, fileMerging, test);
    }

    private void killATaskManagerAndTheLeader(String query, String backend, boolean fileMerging, TestInfo test)
            throws Exception {
        Map<String, String> config = new LinkedHashMap<>();
        config.put("execution.runtime-mode", "streaming");
        config.put("execution.checkpointing.interval", "300ms");
        config.put("execution.checkpointing.dir", tempDir.resolve("checkpoints").toString());
        config.put("execution.checkpointing.file-merging.enabled", Boolean.toString(fileMerging));
        config.put("state.backend.type", backend);
        String jobId = "nexmark-" + query;
        Path output = tempDir.resolve("output");
        cluster.submit(SubmitJobRequest.newBuilder().setJobId(jobId).setJobClass(NexmarkQueries.class.getName())
                .putAllParams(params(query, output)).putAllConfig(config).setParallelism(2).build());

        long beforeTaskManager = awaitCompletedCheckpointAfter(jobId, 0);
        String victim = cluster.status(jobId).getVertices(0).getTasks(0).getTmId();
        HaCluster.JobManager leader = cluster.leader().orElseThrow();
        cluster.killTaskManager(cluster.taskManagerIndex(victim));
        cluster.addTaskManager();
        // The leader restores the job before it dies too (a checkpoint completing meanwhile may be
        // one the tasks took before the TaskManager died).
        cluster.awaitLog(leader, "Job " + jobId + ": tasks restore checkpoint", JOB_TIMEOUT);
        long beforeLeader = awaitCompletedCheckpointAfter(jobId, beforeTaskManager);

        LeaderInfo session = cluster.leaderInfo();
        cluster.kill(leader);
        cluster.awaitNewLeader(leader, session, HaCluster.FAILOVER_TIMEOUT);
        JobResult result = cluster.awaitResult(jobId, JOB_TIMEOUT);

        JobStatus status = result.getStatus();
        assertThat(status.getState()).as("state, failure '%s'", status.getFailure()).isEqualTo(JobState.JOB_FINISHED);
        List<String> expected = expected(query);
        assertThat(expected).as("the query finds something").hasSizeGreaterThan(3);
        assertThat(NexmarkExpected.comparable(query, committedLines(output))).isEqualTo(expected);
        System.out.printf("%s: %d results exact after a TaskManager kill (after checkpoint %d) and a leader kill"
                + " (after checkpoint %d)%n", test.getDisplayName(), expected.size(), beforeTaskManager, beforeLeader);
    }

    private static Map<String, String> params(String query, Path output) {
        Map<String, String> params = new LinkedHashMap<>();
        params.put("query", query);
        params.put("events", Long.toString(EVENTS));
        params.put("event-rate", Long.toString(EVENT_RATE));
        params.put("out-of-orderness", Long.toString(OUT_OF_ORDERNESS_MS));
        params.put("window", Long.toString(WINDOW.toMillis()));
        params.put("slide", Long.toString(SLIDE.toMillis()));
        params.put("gap", Long.toString(GAP.toMillis()));
        params.put("rate", Long.toString(RATE));
        params.put("output", output.toString());
        return params;
    }

    /** The lines a correct run writes, sorted; for q4, the last average of each category. */
    private static List<String> expected(String query) {
        NexmarkExpected expected = new NexmarkExpected(NexmarkConfig.defaults()
                .withMaxOutOfOrdernessMs(OUT_OF_ORDERNESS_MS).withEventsPerSecond(EVENT_RATE), EVENTS);
        return expected.lines(query, WINDOW, SLIDE, GAP);
    }

    /** Waits for a completed checkpoint with an id above {@code after}; returns the newest one's. */
    private long awaitCompletedCheckpointAfter(String jobId, long after) {
        JobCheckpoints checkpoints = await("a checkpoint of " + jobId + " above " + after + " completes")
                .atMost(JOB_TIMEOUT).pollInterval(POLL).ignoreException(CliException.class)
                .until(() -> cluster.checkpoints(jobId), c -> c.getCheckpointsList().stream()
                        .anyMatch(s -> s.getCheckpointId() > after && s.getStatus().equals("COMPLETED")));
        return checkpoints.getCheckpointsList().stream().filter(s -> s.getStatus().equals("COMPLETED"))
                .mapToLong(CheckpointSummary::getCheckpointId).max().orElseThrow();
    }

    /** The lines of the file sink's committed part files; in-progress files are hidden. */
    private static List<String> committedLines(Path output) {
        List<String> lines = new ArrayList<>();
        try (Stream<Path> files = Files.list(output)) {
            for (Path part : files.filter(f -> f.getFileName().toString().startsWith("part-")).toList()) {
                lines.addAll(Files.readAllLines(part, StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return lines;
    }
}
