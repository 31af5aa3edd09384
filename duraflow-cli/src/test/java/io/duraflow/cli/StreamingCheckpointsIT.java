package io.duraflow.cli;

import static io.duraflow.cli.StalledCheckpoints.JOB_TIMEOUT;
import static io.duraflow.cli.StalledCheckpoints.KEYS;
import static io.duraflow.cli.StalledCheckpoints.POLL;
import static io.duraflow.cli.StalledCheckpoints.RECORDS;
import static io.duraflow.cli.StalledCheckpoints.STALLING;
import static io.duraflow.cli.StalledCheckpoints.assertFinished;
import static io.duraflow.cli.StalledCheckpoints.assertHeldOpen;
import static io.duraflow.cli.StalledCheckpoints.assertIdsIncrease;
import static io.duraflow.cli.StalledCheckpoints.awaitCheckpointAfter;
import static io.duraflow.cli.StalledCheckpoints.awaitGone;
import static io.duraflow.cli.StalledCheckpoints.completedIds;
import static io.duraflow.cli.StalledCheckpoints.firstRestore;
import static io.duraflow.cli.StalledCheckpoints.regularFiles;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.duraflow.checkpoint.CheckpointMetadataFormat;
import io.duraflow.checkpoint.CompletedCheckpoint;
import io.duraflow.cli.demo.CheckpointWatch;
import io.duraflow.examples.StreamingKeyedSum;
import io.duraflow.fs.FsPath;
import io.duraflow.fs.LocalFileSystem;
import io.duraflow.rpc.proto.JobCheckpoints;
import io.duraflow.rpc.proto.JobResult;
import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.rpc.proto.SubmitJobRequest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Streaming jobs with exactly-once checkpoints against real processes: a TaskManager is
 * SIGKILLed <em>during</em> a checkpoint, and bounded jobs end with their final commit. The
 * crash tests run {@link StallingKeyedSum}, whose "Sum per key" subtask 0 holds a checkpoint open
 * until its process dies, once output was committed: the kill comes after the checkpoint was
 * triggered and the other tasks acknowledged it (their state files are in its {@code chk-<n>}),
 * and before it can complete, every time (see {@link StalledCheckpoints}). Each test checks:
 * <ul>
 *   <li>the committed output exactly ({@link StreamingKeyedSum#readOutput} against the plain loop
 *       of {@code ExactOutput}), no in-progress file left in the output directory;
 *   <li>what the checkpoints did: which one the job restored, that the aborted one left no file
 *       under its {@code chk-<n>}, that checkpoint ids only go up, that checkpoints complete after
 *       the crash, and what {@code execution.checkpointing.retention} leaves at the end.
 * </ul>
 * The tests share one cluster (a JobManager and two TaskManagers with four slots each), each with
 * its own job ids and files; a killed TaskManager is replaced after its test, and every process
 * is gone when the class ends. The leader JobManager killed during a checkpoint is
 * {@link StreamingLeaderChangeIT}'s.
 */
class StreamingCheckpointsIT {
    /** The rate of the RocksDB job: about 25 s of input. */
    private static final String ROCKSDB_RATE = "8000";

    @RegisterExtension
    static final LogsOnFailure LOGS = new LogsOnFailure();

    @TempDir
    static Path sharedDir;

    @TempDir
    Path tempDir;

    private static TestCluster cluster;
    private StalledCheckpoints stalled;
    private final long started = System.nanoTime();

    @BeforeAll
    static void startCluster() throws IOException {
        cluster = TestCluster.start(LOGS.watch(sharedDir.resolve("cluster")), 2, Map.of("taskmanager.slots", "4"));
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
        // The ZooKeeper server the HA test classes of this JVM share outlives them on purpose.
        List<String> left = ProcessHandle.current().descendants().filter(ProcessHandle::isAlive)
                .filter(p -> !ZooKeeperServer.isShared(p))
                .map(p -> p.pid() + " " + p.info().commandLine().orElse("(command line unknown)")).toList();
        assertThat(left).as("processes of the test JVM that still run after the tests").isEmpty();
    }

    @BeforeEach
    void files() {
        stalled = new StalledCheckpoints(tempDir);
    }

    /**
     * Replaces a TaskManager the test killed and waits until no job runs: the next test finds the
     * cluster as this one did.
     */
    @AfterEach
    void restoreTheCluster(TestInfo test) throws IOException {
        while (cluster.liveTaskManagerCount() < 2) {
            cluster.startTaskManager();
        }
        cluster.awaitTaskManagers(2);
        await("no job runs").atMost(Duration.ofSeconds(30)).pollInterval(POLL)
                .until(() -> cluster.overview().getRunningJobs() == 0);
        System.out.printf("%s: %.1f s%n", test.getDisplayName(), (System.nanoTime() - started) / 1e9);
    }

    // ------------------------------------------------------------------ scenarios

    /**
     * (1) The TaskManager that runs the subtask holding checkpoint n dies, with RocksDB and
     * incremental checkpoints. The checkpoint is aborted and its files deleted, the job restarts
     * from the latest completed one on the other TaskManager (the restored subtasks open the
     * native snapshot, with its shared SST files under {@code shared/}), completes checkpoints
     * again (ids above n) and finishes with exactly-once output. The heap backend's restore after
     * a TaskManager killed during a checkpoint is (1b)'s, and NexmarkFailoverIT's (q11).
     */
    @Test
    void taskManagerKilledDuringACheckpointWithRocksDB() throws Exception {
        String jobId = "tm-killed-during-checkpoint-rocksdb";
        Map<String, String> config = new LinkedHashMap<>(stalled.checkpointing());
        config.put("state.backend.type", "rocksdb");
        config.put("state.backend.incremental", "true");
        Map<String, String> params = new LinkedHashMap<>(stalled.stallingParams(jobId));
        // a native checkpoint flushes and uploads files: on a loaded machine it takes seconds, so the
        // input lasts longer than with heap state and the stall still comes before the sources end
        params.put("rate", ROCKSDB_RATE);
        try (ClusterClient client = new ClusterClient(cluster.address())) {
            client.submit(SubmitJobRequest.newBuilder().setJobId(jobId).setJobClass(STALLING)
                    .putAllParams(params).putAllConfig(config).setParallelism(2).build());

            StallingKeyedSum.Stall stall = stalled.awaitStall(() -> cluster.status(jobId));
            long held = stall.checkpointId();
            List<Path> acknowledged = stalled.awaitAcknowledgedFiles(jobId, held, () -> client.checkpoints(jobId),
                    true);
            int committed = stalled.awaitCommittedOutput(jobId);
            int victim = cluster.taskManagerIndexOfPid(stall.pid());
            long latest = assertHeldOpen(client.checkpoints(jobId), held);
            cluster.killTaskManager(victim);

            JobCheckpoints after = awaitCheckpointAfter(held, () -> client.checkpoints(jobId));
            assertThat(regularFiles(stalled.checkpoints().resolve(jobId).resolve("shared")))
                    .as("SST files of the incremental checkpoints").isNotEmpty()
                    .allMatch(file -> !file.getFileName().toString().contains("chk-"));
            assertThat(firstRestore(cluster.logText("jobmanager"), jobId)).as("the first restore of the job")
                    .isEqualTo(latest);
            assertThat(after.getRestoredFromId()).as("restored from").isGreaterThanOrEqualTo(latest);
            assertThat(after.getCheckpointsList()).as("checkpoints after the crash")
                    .noneMatch(c -> c.getCheckpointId() == held && c.getStatus().equals("COMPLETED"));
            assertIdsIncrease(after);
            stalled.awaitNoFilesOfTheAbortedCheckpoint(jobId, held, acknowledged, () -> cluster.status(jobId));

            JobResult result = cluster.awaitResult(jobId, JOB_TIMEOUT);
            assertFinished(result, 1);
            stalled.assertExactlyOnceOutput(jobId);
            awaitGone(stalled.checkpoints().resolve(jobId),
                    "the finished job's checkpoints (retention delete-on-cancellation)");
            System.out.printf("%s: killed taskmanager-%d (pid %d) during checkpoint %d, %,d lines committed; %d"
                    + " restarts; restored %d; %d checkpoints completed after the crash%n", jobId, victim, stall.pid(),
                    held, committed, result.getStatus().getRestarts(), after.getRestoredFromId(),
                    after.getCheckpointsList().stream()
                            .filter(c -> c.getCheckpointId() > held && c.getStatus().equals("COMPLETED")).count());
        }
    }

    /**
     * (1b) The TaskManager dies during the final checkpoint: the sources have finished (their last
     * checkpoint completed), and "Sum per key" holds the checkpoint that would let the sinks
     * commit their last parts and the job finish. The restart runs the finished sources again
     * from the latest checkpoint, where they had read everything; the job still finishes, every
     * line committed once.
     */
    @Test
    void taskManagerKilledDuringTheFinalCheckpoint() throws Exception {
        String jobId = "tm-killed-during-final-checkpoint";
        Map<String, String> params = new LinkedHashMap<>(stalled.stallingParams(jobId));
        params.put("stall-at-end", "true");
        try (ClusterClient client = new ClusterClient(cluster.address())) {
            client.submit(SubmitJobRequest.newBuilder().setJobId(jobId).setJobClass(STALLING).putAllParams(params)
                    .putAllConfig(stalled.checkpointing()).setParallelism(2).build());

            StallingKeyedSum.Stall stall = stalled.awaitStall(() -> cluster.status(jobId));
            long held = stall.checkpointId();
            JobStatus atTheKill = cluster.status(jobId);
            long latest = assertHeldOpen(client.checkpoints(jobId), held);
            assertThat(TestCluster.vertex(atTheKill, "Generate records").getFinished())
                    .as("source tasks finished when the final checkpoint is held: %s", atTheKill).isEqualTo(2);
            int victim = cluster.taskManagerIndexOfPid(stall.pid());
            cluster.killTaskManager(victim);

            JobResult result = cluster.awaitResult(jobId, JOB_TIMEOUT);
            assertFinished(result, 1);
            assertThat(firstRestore(cluster.logText("jobmanager"), jobId)).as("the first restore of the job")
                    .isEqualTo(latest);
            stalled.assertExactlyOnceOutput(jobId);
            awaitGone(stalled.checkpoints().resolve(jobId),
                    "the finished job's checkpoints (retention delete-on-cancellation)");
            System.out.printf("%s: killed taskmanager-%d during checkpoint %d (the sources had finished); %d restarts%n",
                    jobId, victim, held, result.getStatus().getRestarts());
        }
    }

    /**
     * (3) Bounded streaming jobs end with their final checkpoint, which commits the last records:
     * FINISHED without a restart, every key's line committed once, no in-progress file. With the
     * default retention the job's checkpoint directory is deleted; with
     * {@code retain-on-cancellation} exactly the last completed checkpoint stays, and its sources
     * had read every record.
     */
    @Test
    void boundedJobsEndWithTheirFinalCommit() throws Exception {
        String deleted = "bounded-delete-on-cancellation";
        String retained = "bounded-retain-on-cancellation";
        try (ClusterClient client = new ClusterClient(cluster.address())) {
            for (String jobId : List.of(deleted, retained)) {
                Map<String, String> config = new LinkedHashMap<>(stalled.checkpointing());
                if (jobId.equals(retained)) {
                    config.put("execution.checkpointing.retention", "retain-on-cancellation");
                }
                client.submit(SubmitJobRequest.newBuilder().setJobId(jobId)
                        .setJobClass(StreamingKeyedSum.class.getName()).putParams("records", Long.toString(RECORDS))
                        .putParams("keys", Long.toString(KEYS)).putParams("rate", "60000")
                        .putParams("output", stalled.output(jobId).toString()).putAllConfig(config).setParallelism(2)
                        .build());
            }
            for (String jobId : List.of(deleted, retained)) {
                assertFinished(cluster.awaitResult(jobId, JOB_TIMEOUT), 0);
                stalled.assertExactlyOnceOutput(jobId);
            }
        }
        awaitGone(stalled.checkpoints().resolve(deleted),
                "the checkpoints of the job with retention delete-on-cancellation");

        List<Long> completed = completedIds(cluster.logText("jobmanager"), retained);
        assertThat(completed).as("checkpoints of %s the JobManager completed", retained).isNotEmpty();
        long last = completed.get(completed.size() - 1);
        Path jobCheckpoints = stalled.checkpoints().resolve(retained);
        await("the cleanup of " + retained + " ran").atMost(Duration.ofSeconds(30)).pollInterval(POLL)
                .until(() -> cluster.logText("jobmanager").contains("Job " + retained + " ended as FINISHED: its"
                        + " checkpoints stay under"));
        assertThat(checkpointDirectories(jobCheckpoints)).as("checkpoint directories left in %s", jobCheckpoints)
                .containsExactly("chk-" + last);
        CompletedCheckpoint kept = CheckpointMetadataFormat.read(LocalFileSystem.INSTANCE,
                FsPath.of(jobCheckpoints.resolve("chk-" + last).resolve("_metadata")), retained, last);
        assertThat(CheckpointWatch.sourceRecordsRead(kept, RECORDS)).as("records the sources had read in checkpoint %d",
                last).isEqualTo(RECORDS);
    }

    private static List<String> checkpointDirectories(Path jobCheckpoints) throws IOException {
        try (Stream<Path> entries = Files.list(jobCheckpoints)) {
            return entries.map(p -> p.getFileName().toString()).filter(name -> name.startsWith("chk-")).sorted()
                    .toList();
        }
    }
}
