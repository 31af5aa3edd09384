package io.duraflow.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.duraflow.checkpoint.CheckpointMetadataFormat;
import io.duraflow.checkpoint.CompletedCheckpoint;
import io.duraflow.examples.StreamingKeyedSum;
import io.duraflow.fs.FsPath;
import io.duraflow.fs.LocalFileSystem;
import io.duraflow.ha.LeaderInfo;
import io.duraflow.rpc.proto.CheckpointSummary;
import io.duraflow.rpc.proto.JobCheckpoints;
import io.duraflow.rpc.proto.JobResult;
import io.duraflow.rpc.proto.JobState;
import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.rpc.proto.SubmitJobRequest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Streaming jobs with exactly-once checkpoints against real processes (issue 9): a TaskManager
 * and the leader JobManager are SIGKILLed <em>during</em> a checkpoint, and a bounded job ends
 * with its final commit. The crash tests run {@link StallingKeyedSum}, whose "Sum per key"
 * subtask 0 holds checkpoint {@value #STALLED} open until its process dies: the kill comes after
 * the checkpoint was triggered and the other tasks acknowledged it (their state files are in its
 * {@code chk-3}), and before it can complete, every time. Each test checks:
 * <ul>
 *   <li>the committed output exactly ({@link StreamingKeyedSum#readOutput} against the plain loop
 *       of {@link ExactOutput}), no in-progress file left in the output directory;
 *   <li>what the checkpoints did: which one the job restored, that the aborted one left no file
 *       under its {@code chk-<n>}, that checkpoint ids only go up, that checkpoints complete after
 *       the crash, and what {@code execution.checkpointing.retention} leaves at the end;
 *   <li>that no process outlives its test.
 * </ul>
 */
class StreamingCheckpointsIT {
    private static final String STALLING = StallingKeyedSum.class.getName();
    private static final long RECORDS = 300_000;
    private static final long KEYS = 10_000;
    /** Records per second over both sources: the job runs for about 12 s, so checkpoints complete after a crash. */
    private static final String RATE = "25000";
    /** The checkpoint the crash tests kill a process during; 1 and 2 complete before it. */
    private static final long STALLED = 3;
    private static final Duration JOB_TIMEOUT = Duration.ofMinutes(2);
    private static final Duration POLL = Duration.ofMillis(100);
    private static final Pattern TRIGGERED = Pattern.compile("Triggering checkpoint (\\d+) of job (\\S+) ");

    @RegisterExtension
    static final LogsOnFailure LOGS = new LogsOnFailure();

    @TempDir
    Path tempDir;

    private final List<AutoCloseable> clusters = new ArrayList<>();
    private final long started = System.nanoTime();

    @AfterEach
    void stopClusters(TestInfo test) throws Exception {
        for (AutoCloseable cluster : clusters) {
            cluster.close();
        }
        List<ProcessHandle> left = ProcessHandle.current().descendants().filter(ProcessHandle::isAlive).toList();
        assertThat(left).as("processes the test started that still run").isEmpty();
        System.out.printf("%s: %.1f s%n", test.getDisplayName(), (System.nanoTime() - started) / 1e9);
    }

    /** Streaming mode, a checkpoint every 300 ms, and every non-empty piece of state in a file of its checkpoint. */
    private Map<String, String> checkpointing() {
        Map<String, String> config = new LinkedHashMap<>();
        config.put("execution.runtime-mode", "streaming");
        config.put("execution.checkpointing.interval", "300ms");
        config.put("execution.checkpointing.dir", checkpoints().toString());
        config.put("state.storage.inline-threshold", "0");
        return config;
    }

    private Path checkpoints() {
        return tempDir.resolve("checkpoints");
    }

    private Path output(String jobId) {
        return tempDir.resolve("output").resolve(jobId);
    }

    private Path markers() {
        return tempDir.resolve("markers");
    }

    private Map<String, String> stallingParams(String jobId) {
        return Map.of("records", Long.toString(RECORDS), "keys", Long.toString(KEYS), "rate", RATE,
                "output", output(jobId).toString(), "stall-checkpoint", Long.toString(STALLED),
                "stall-marker", markers().toString());
    }

    // ------------------------------------------------------------------ scenarios

    /**
     * (1) The TaskManager that runs the subtask holding checkpoint 3 dies. The checkpoint is
     * aborted and its files deleted, the job restarts from checkpoint 2 on the other TaskManager,
     * completes checkpoints again (ids above 3) and finishes with exactly-once output.
     */
    @Test
    void taskManagerKilledDuringACheckpoint() throws Exception {
        TestCluster cluster = TestCluster.start(LOGS.watch(tempDir.resolve("cluster")), 2,
                Map.of("taskmanager.slots", "4"));
        clusters.add(cluster);
        String jobId = "tm-killed-during-checkpoint";
        try (ClusterClient client = new ClusterClient(cluster.address())) {
            client.submit(SubmitJobRequest.newBuilder().setJobId(jobId).setJobClass(STALLING)
                    .putAllParams(stallingParams(jobId)).putAllConfig(checkpointing()).setParallelism(2).build());

            long pid = awaitStall(() -> cluster.status(jobId));
            List<Path> acknowledged = awaitAcknowledgedFiles(jobId, () -> client.checkpoints(jobId));
            int victim = cluster.taskManagerIndexOfPid(pid);
            assertHeldOpen(client.checkpoints(jobId));
            cluster.killTaskManager(victim);

            JobCheckpoints after = awaitCheckpointAfterTheStalledOne(() -> client.checkpoints(jobId));
            assertThat(firstRestore(cluster.logText("jobmanager"), jobId)).as("the first restore of the job")
                    .isEqualTo(STALLED - 1);
            assertThat(after.getRestoredFromId()).as("restored from").isGreaterThanOrEqualTo(STALLED - 1);
            assertThat(after.getCheckpointsList()).as("checkpoints after the crash")
                    .noneMatch(c -> c.getCheckpointId() == STALLED && c.getStatus().equals("COMPLETED"));
            assertIdsIncrease(after);
            awaitNoFilesOfTheAbortedCheckpoint(jobId, acknowledged);

            JobResult result = cluster.awaitResult(jobId, JOB_TIMEOUT);
            assertFinished(result, 1);
            assertExactlyOnceOutput(jobId);
            awaitGone(checkpoints().resolve(jobId), "the finished job's checkpoints (retention delete-on-cancellation)");
            System.out.printf("%s: killed taskmanager-%d (pid %d) during checkpoint %d; %d restarts; restored %d;"
                    + " %d checkpoints completed after the crash%n", jobId, victim, pid, STALLED,
                    result.getStatus().getRestarts(), after.getRestoredFromId(), after.getCheckpointsList().stream()
                            .filter(c -> c.getCheckpointId() > STALLED && c.getStatus().equals("COMPLETED")).count());
        }
    }

    /**
     * (2) The leader JobManager dies while checkpoint 3 is in progress (ZooKeeper HA, two
     * JobManagers). The new leader restores checkpoint 2, the latest in the completed store at the
     * kill; its checkpoint ids continue above every id the old leader used; the directory the old
     * leader left for checkpoint 3 is deleted; the job finishes with exactly-once output.
     */
    @Test
    void leaderKilledDuringACheckpoint() throws Exception {
        Map<String, String> config = new LinkedHashMap<>(checkpointing());
        config.put("taskmanager.slots", "2");
        // Through the cluster's configuration this time (the other tests give it with the job).
        HaCluster cluster = HaCluster.start(LOGS.watch(tempDir.resolve("cluster")), null, 2, 2, config, null);
        clusters.add(cluster);
        String jobId = "leader-killed-during-checkpoint";
        cluster.submit(jobId, STALLING, stallingParams(jobId), 2);
        HaCluster.JobManager first = cluster.leader().orElseThrow();

        awaitStall(() -> cluster.status(jobId));
        List<Path> acknowledged = awaitAcknowledgedFiles(jobId, () -> cluster.checkpoints(jobId));
        assertHeldOpen(cluster.checkpoints(jobId));
        LeaderInfo oldSession = cluster.leaderInfo();
        cluster.kill(first);
        // The store as the dead leader left it (no one writes it until the next leader recovers the job).
        List<Long> storedAtTheKill = completedStore(cluster.jobDirectory(jobId));
        HaCluster.JobManager second = cluster.awaitNewLeader(first, oldSession, HaCluster.FAILOVER_TIMEOUT);

        List<Long> usedByTheOldLeader = triggeredIds(cluster.logText(first.name), jobId);
        assertThat(storedAtTheKill).as("completed checkpoints in the HA store at the kill").containsExactly(STALLED - 1);
        assertThat(usedByTheOldLeader).as("checkpoints the old leader triggered").isSorted().last()
                .isEqualTo(STALLED);
        JobCheckpoints after = awaitCheckpointAfterTheStalledOne(() -> cluster.checkpoints(jobId));
        assertThat(after.getRestoredFromId()).as("what the new leader restored").isEqualTo(STALLED - 1);
        assertThat(cluster.logText(second.name)).contains("Job " + jobId + ": tasks restore checkpoint "
                + (STALLED - 1) + " of job " + jobId);
        assertThat(after.getCheckpointsList()).as("the new leader's checkpoints").isNotEmpty()
                .allMatch(c -> c.getCheckpointId() > STALLED);
        assertIdsIncrease(after);
        awaitNoFilesOfTheAbortedCheckpoint(jobId, acknowledged);

        JobResult result = cluster.awaitResult(jobId, JOB_TIMEOUT);
        assertFinished(result, 0);
        assertExactlyOnceOutput(jobId);
        assertThat(triggeredIds(cluster.logText(second.name), jobId)).as("checkpoints the new leader triggered")
                .isSorted().doesNotHaveDuplicates().allMatch(id -> id > STALLED);
        awaitGone(checkpoints().resolve(jobId), "the finished job's checkpoints (retention delete-on-cancellation)");
        System.out.printf("%s: killed %s during checkpoint %d; %s took over, restored %d%n", jobId, first, STALLED,
                second.name, after.getRestoredFromId());
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
        TestCluster cluster = TestCluster.start(LOGS.watch(tempDir.resolve("cluster")), 1,
                Map.of("taskmanager.slots", "8"));
        clusters.add(cluster);
        String deleted = "bounded-delete-on-cancellation";
        String retained = "bounded-retain-on-cancellation";
        try (ClusterClient client = new ClusterClient(cluster.address())) {
            for (String jobId : List.of(deleted, retained)) {
                Map<String, String> config = new LinkedHashMap<>(checkpointing());
                if (jobId.equals(retained)) {
                    config.put("execution.checkpointing.retention", "retain-on-cancellation");
                }
                client.submit(SubmitJobRequest.newBuilder().setJobId(jobId)
                        .setJobClass(StreamingKeyedSum.class.getName()).putParams("records", Long.toString(RECORDS))
                        .putParams("keys", Long.toString(KEYS)).putParams("rate", "60000")
                        .putParams("output", output(jobId).toString()).putAllConfig(config).setParallelism(2).build());
            }
            for (String jobId : List.of(deleted, retained)) {
                assertFinished(cluster.awaitResult(jobId, JOB_TIMEOUT), 0);
                assertExactlyOnceOutput(jobId);
            }
        }
        awaitGone(checkpoints().resolve(deleted), "the checkpoints of the job with retention delete-on-cancellation");

        List<Long> completed = completedIds(cluster.logText("jobmanager"), retained);
        assertThat(completed).as("checkpoints of %s the JobManager completed", retained).isNotEmpty();
        long last = completed.get(completed.size() - 1);
        Path jobCheckpoints = checkpoints().resolve(retained);
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

    // ------------------------------------------------------------------ the stalled checkpoint

    /** Waits until the stalling subtask holds checkpoint 3; returns the pid of the TaskManager it runs in. */
    private long awaitStall(Supplier<JobStatus> status) throws IOException {
        Path marker = StallingKeyedSum.marker(markers(), STALLED);
        await("subtask 0 of 'Sum per key' holds checkpoint " + STALLED).atMost(JOB_TIMEOUT).pollInterval(POLL)
                .failFast("the job ended", () -> JobRunner.isTerminal(status.get().getState()))
                .until(() -> Files.exists(marker));
        return Long.parseLong(Files.readString(marker).trim());
    }

    /**
     * Waits until the tasks that can acknowledge checkpoint 3 did (the two sources and the other
     * "Sum per key" subtask, with the sink chained to it: the checkpoint counts their files) and
     * returns the files they wrote into {@code chk-3}.
     */
    private List<Path> awaitAcknowledgedFiles(String jobId, Supplier<JobCheckpoints> checkpoints) {
        Path directory = checkpoints().resolve(jobId).resolve("chk-" + STALLED);
        return await("the other tasks' state files of checkpoint " + STALLED).atMost(JOB_TIMEOUT).pollInterval(POLL)
                .until(() -> {
                    CheckpointSummary stalled = summary(checkpoints.get(), STALLED);
                    List<Path> files = regularFiles(directory);
                    return stalled != null && stalled.getFiles() >= 3 && files.size() >= stalled.getFiles()
                            ? files : List.<Path>of();
                }, files -> !files.isEmpty());
    }

    /** Checkpoint 3 is in progress, 2 is the latest completed, nothing later was started. */
    private static void assertHeldOpen(JobCheckpoints checkpoints) {
        CheckpointSummary stalled = summary(checkpoints, STALLED);
        assertThat(stalled).as("checkpoint %d in %s", STALLED, checkpoints).isNotNull();
        assertThat(stalled.getStatus()).as("checkpoint %d at the kill", STALLED).isEqualTo("IN_PROGRESS");
        assertThat(checkpoints.getLatestCompletedId()).as("latest completed at the kill").isEqualTo(STALLED - 1);
        assertThat(checkpoints.getCheckpointsList()).as("checkpoints at the kill")
                .allMatch(c -> c.getCheckpointId() <= STALLED);
    }

    /** Waits until a checkpoint after the stalled one completed; returns the statistics then. */
    private static JobCheckpoints awaitCheckpointAfterTheStalledOne(Supplier<JobCheckpoints> checkpoints) {
        return await("a checkpoint after " + STALLED + " completes").atMost(JOB_TIMEOUT).pollInterval(POLL)
                .ignoreException(CliException.class)
                .until(checkpoints::get, c -> c.getCheckpointsList().stream()
                        .anyMatch(s -> s.getCheckpointId() > STALLED && s.getStatus().equals("COMPLETED")));
    }

    /**
     * The aborted checkpoint's files are gone and its directory holds no file (a task that was
     * still writing may re-create the directory; the next completion deletes it).
     */
    private void awaitNoFilesOfTheAbortedCheckpoint(String jobId, List<Path> acknowledged) {
        Path directory = checkpoints().resolve(jobId).resolve("chk-" + STALLED);
        await("no file left under " + directory).atMost(Duration.ofSeconds(30)).pollInterval(POLL)
                .until(() -> regularFiles(directory).isEmpty());
        assertThat(acknowledged).as("files the tasks wrote for checkpoint %d", STALLED).noneMatch(Files::exists);
    }

    // ------------------------------------------------------------------ checks

    private static void assertFinished(JobResult result, int minRestarts) {
        JobStatus status = result.getStatus();
        assertThat(status.getState()).as("state of %s, failure '%s'", status.getJobId(), status.getFailure())
                .isEqualTo(JobState.JOB_FINISHED);
        if (minRestarts == 0) {
            assertThat(status.getRestarts()).as("restarts of %s", status.getJobId()).isZero();
        } else {
            assertThat(status.getRestarts()).as("restarts of %s", status.getJobId()).isGreaterThanOrEqualTo(minRestarts);
        }
    }

    /** Every (key, sum, count) of the plain loop committed exactly once, nothing else, no in-progress file. */
    private void assertExactlyOnceOutput(String jobId) throws IOException {
        Path output = output(jobId);
        List<String> problems = ExactOutput.check(StreamingKeyedSum.readOutput(output), RECORDS, KEYS);
        assertThat(problems).as("problems of the committed output in %s", output).isEmpty();
        List<String> names;
        try (Stream<Path> files = Files.list(output)) {
            names = files.map(f -> f.getFileName().toString()).sorted().toList();
        }
        assertThat(names).as("files in %s", output).isNotEmpty().allMatch(name -> name.startsWith("part-"));
    }

    /** Checkpoint ids in the statistics (oldest first, in progress last) strictly increase. */
    private static void assertIdsIncrease(JobCheckpoints checkpoints) {
        assertThat(checkpoints.getCheckpointsList().stream().map(CheckpointSummary::getCheckpointId).toList())
                .as("checkpoint ids in %s", checkpoints).isSorted().doesNotHaveDuplicates();
    }

    private static void awaitGone(Path path, String what) {
        await(what + " deleted: " + path).atMost(Duration.ofSeconds(30)).pollInterval(POLL)
                .until(() -> !Files.exists(path));
    }

    // ------------------------------------------------------------------ reading what the processes left

    private static CheckpointSummary summary(JobCheckpoints checkpoints, long id) {
        return checkpoints.getCheckpointsList().stream().filter(c -> c.getCheckpointId() == id).findFirst()
                .orElse(null);
    }

    private static List<Path> regularFiles(Path directory) throws IOException {
        if (!Files.isDirectory(directory)) {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(directory)) {
            return files.filter(Files::isRegularFile).toList();
        } catch (java.io.UncheckedIOException e) {
            return List.of(directory.resolve("(changing while listed)"));
        }
    }

    private static List<String> checkpointDirectories(Path jobCheckpoints) throws IOException {
        try (Stream<Path> entries = Files.list(jobCheckpoints)) {
            return entries.map(p -> p.getFileName().toString()).filter(name -> name.startsWith("chk-")).sorted()
                    .toList();
        }
    }

    /** The ids of the pointers in the HA completed-checkpoint store of the job ({@code <ha job dir>/checkpoints}). */
    private static List<Long> completedStore(Path jobHaDirectory) throws IOException {
        Path pointers = jobHaDirectory.resolve("checkpoints");
        if (!Files.isDirectory(pointers)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(pointers)) {
            return files.map(p -> p.getFileName().toString()).filter(name -> name.matches("checkpoint-\\d{19}"))
                    .map(name -> Long.parseLong(name.substring("checkpoint-".length()))).sorted().toList();
        }
    }

    /** Ids of the job's checkpoints a JobManager log says it triggered, in log order. */
    private static List<Long> triggeredIds(String log, String jobId) {
        List<Long> ids = new ArrayList<>();
        Matcher matcher = TRIGGERED.matcher(log);
        while (matcher.find()) {
            if (matcher.group(2).equals(jobId)) {
                ids.add(Long.parseLong(matcher.group(1)));
            }
        }
        return ids;
    }

    /** Ids of the job's checkpoints a JobManager log says completed, in log order. */
    private static List<Long> completedIds(String log, String jobId) {
        List<Long> ids = new ArrayList<>();
        Matcher matcher = Pattern.compile("Completed checkpoint (\\d+) of job " + Pattern.quote(jobId) + " ")
                .matcher(log);
        while (matcher.find()) {
            ids.add(Long.parseLong(matcher.group(1)));
        }
        return ids;
    }

    /** The checkpoint the job's tasks restored first, as the JobManager logged it; -1 if none. */
    private static long firstRestore(String log, String jobId) {
        Matcher matcher = Pattern.compile("Job " + Pattern.quote(jobId) + ": tasks restore checkpoint (\\d+) ")
                .matcher(log);
        return matcher.find() ? Long.parseLong(matcher.group(1)) : -1;
    }
}
