package io.duraflow.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.duraflow.checkpoint.CheckpointMetadataFormat;
import io.duraflow.checkpoint.CompletedCheckpoint;
import io.duraflow.cli.demo.CheckpointWatch;
import io.duraflow.cli.demo.ExactOutput;
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
 * Streaming jobs with exactly-once checkpoints against real processes: a TaskManager
 * and the leader JobManager are SIGKILLed <em>during</em> a checkpoint, and a bounded job ends
 * with its final commit. The crash tests run {@link StallingKeyedSum}, whose "Sum per key"
 * subtask 0 holds a checkpoint open until its process dies, once output was committed: the kill
 * comes after the checkpoint was triggered and the other tasks acknowledged it (their state files
 * are in its {@code chk-<n>}), and before it can complete, every time. Records {@code i} of
 * 200,000 have key {@code i * 7919 mod 100,000}, so every key gets two and is emitted at its
 * second, spread over the second half of the job: part of the output is committed before the
 * crash, part of it is replayed after the restore. Each test checks:
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
    private static final long RECORDS = 200_000;
    private static final long KEYS = 100_000;
    /** Records per second over both sources: the job runs for about 10 s, so checkpoints complete after a crash. */
    private static final String RATE = "20000";
    /** The rate of the RocksDB variant: about 25 s of input. */
    private static final String ROCKSDB_RATE = "8000";
    /** Results subtask 0 emits before it holds a checkpoint open (it emits about 50,000 in all). */
    private static final String STALL_AFTER_RESULTS = "1000";
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
        List<String> left = ProcessHandle.current().descendants().filter(ProcessHandle::isAlive)
                .map(p -> p.pid() + " " + p.info().commandLine().orElse("(command line unknown)")).toList();
        assertThat(left).as("processes of the test JVM that still run after the test").isEmpty();
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

    private Path marker() {
        return tempDir.resolve("stalled");
    }

    private Map<String, String> stallingParams(String jobId) {
        return Map.of("records", Long.toString(RECORDS), "keys", Long.toString(KEYS), "rate", RATE,
                "output", output(jobId).toString(), "stall-after-results", STALL_AFTER_RESULTS,
                "stall-marker", marker().toString());
    }

    /** A cluster of one JobManager and {@code taskManagers} TaskManagers, stopped after the test. */
    private TestCluster startCluster(int taskManagers, int slotsEach) throws Exception {
        TestCluster cluster = TestCluster.start(LOGS.watch(tempDir.resolve("cluster")), taskManagers,
                Map.of("taskmanager.slots", String.valueOf(slotsEach)));
        clusters.add(cluster);
        return cluster;
    }

    // ------------------------------------------------------------------ scenarios

    /**
     * (1) The TaskManager that runs the subtask holding checkpoint n dies. The checkpoint is
     * aborted and its files deleted, the job restarts from the latest completed one on the other TaskManager,
     * completes checkpoints again (ids above n) and finishes with exactly-once output.
     */
    @Test
    void taskManagerKilledDuringACheckpoint() throws Exception {
        taskManagerKilledDuringACheckpoint("tm-killed-during-checkpoint", checkpointing());
    }

    /**
     * (1) with RocksDB and incremental checkpoints: the restored subtasks open the native snapshot
     * of the latest completed checkpoint (shared SST files under {@code shared/}), and the output
     * is exactly once as with the heap backend.
     */
    @Test
    void taskManagerKilledDuringACheckpointWithRocksDB() throws Exception {
        Map<String, String> config = new LinkedHashMap<>(checkpointing());
        config.put("state.backend.type", "rocksdb");
        config.put("state.backend.incremental", "true");
        taskManagerKilledDuringACheckpoint("tm-killed-during-checkpoint-rocksdb", config);
    }

    private void taskManagerKilledDuringACheckpoint(String jobId, Map<String, String> config) throws Exception {
        TestCluster cluster = startCluster(2, 4);
        boolean rocksdb = "rocksdb".equals(config.get("state.backend.type"));
        Map<String, String> params = new LinkedHashMap<>(stallingParams(jobId));
        if (rocksdb) {
            // a native checkpoint flushes and uploads files: on a loaded machine it takes seconds, so the
            // input lasts longer than with heap state and the stall still comes before the sources end
            params.put("rate", ROCKSDB_RATE);
        }
        try (ClusterClient client = new ClusterClient(cluster.address())) {
            client.submit(SubmitJobRequest.newBuilder().setJobId(jobId).setJobClass(STALLING)
                    .putAllParams(params).putAllConfig(config).setParallelism(2).build());

            StallingKeyedSum.Stall stall = awaitStall(() -> cluster.status(jobId));
            long stalled = stall.checkpointId();
            List<Path> acknowledged = awaitAcknowledgedFiles(jobId, stalled, () -> client.checkpoints(jobId), rocksdb);
            int committed = awaitCommittedOutput(jobId);
            int victim = cluster.taskManagerIndexOfPid(stall.pid());
            long latest = assertHeldOpen(client.checkpoints(jobId), stalled);
            cluster.killTaskManager(victim);

            JobCheckpoints after = awaitCheckpointAfter(stalled, () -> client.checkpoints(jobId));
            if (rocksdb) {
                assertThat(regularFiles(checkpoints().resolve(jobId).resolve("shared")))
                        .as("SST files of the incremental checkpoints").isNotEmpty()
                        .allMatch(file -> !file.getFileName().toString().contains("chk-"));
            }
            assertThat(firstRestore(cluster.logText("jobmanager"), jobId)).as("the first restore of the job")
                    .isEqualTo(latest);
            assertThat(after.getRestoredFromId()).as("restored from").isGreaterThanOrEqualTo(latest);
            assertThat(after.getCheckpointsList()).as("checkpoints after the crash")
                    .noneMatch(c -> c.getCheckpointId() == stalled && c.getStatus().equals("COMPLETED"));
            assertIdsIncrease(after);
            awaitNoFilesOfTheAbortedCheckpoint(jobId, stalled, acknowledged, () -> cluster.status(jobId));

            JobResult result = cluster.awaitResult(jobId, JOB_TIMEOUT);
            assertFinished(result, 1);
            assertExactlyOnceOutput(jobId);
            awaitGone(checkpoints().resolve(jobId), "the finished job's checkpoints (retention delete-on-cancellation)");
            System.out.printf("%s: killed taskmanager-%d (pid %d) during checkpoint %d, %,d lines committed; %d"
                    + " restarts; restored %d; %d checkpoints completed after the crash%n", jobId, victim, stall.pid(),
                    stalled, committed, result.getStatus().getRestarts(), after.getRestoredFromId(),
                    after.getCheckpointsList().stream()
                            .filter(c -> c.getCheckpointId() > stalled && c.getStatus().equals("COMPLETED")).count());
        }
    }

    /**
     * (2) The leader JobManager dies while checkpoint n is in progress (ZooKeeper HA, two
     * JobManagers), with adoption off ({@code taskmanager.leader-loss.timeout: 0}: the TaskManagers
     * cancel their tasks; {@link StreamingLeaderChangeIT} has it on). The new leader restores the
     * latest checkpoint in the completed store at the kill; its checkpoint ids continue above every
     * id the old leader used; the directory the old leader left for checkpoint n is deleted; the job
     * finishes with exactly-once output.
     */
    @Test
    void leaderKilledDuringACheckpoint() throws Exception {
        Map<String, String> config = new LinkedHashMap<>(checkpointing());
        config.put("taskmanager.slots", "2");
        // The stalled subtask blocks until its process dies: a task kept through the leader change would hold it forever.
        config.put("taskmanager.leader-loss.timeout", "0");
        // Through the cluster's configuration this time (the other tests give it with the job).
        HaCluster cluster = HaCluster.start(LOGS.watch(tempDir.resolve("cluster")), null, 2, 2, config, null);
        clusters.add(cluster);
        String jobId = "leader-killed-during-checkpoint";
        cluster.submit(jobId, STALLING, stallingParams(jobId), 2);

        long stalled = awaitStall(() -> cluster.status(jobId)).checkpointId();
        List<Path> acknowledged = awaitAcknowledgedFiles(jobId, stalled, () -> cluster.checkpoints(jobId));
        int committed = awaitCommittedOutput(jobId);
        long latest = assertHeldOpen(cluster.checkpoints(jobId), stalled);
        // Whoever leads now (on a loaded machine a ZooKeeper session may have expired before).
        HaCluster.JobManager first = cluster.leader().orElseThrow();
        LeaderInfo oldSession = cluster.leaderInfo();
        cluster.kill(first);
        // The store as the dead leader left it (no one writes it until the next leader recovers the job).
        List<Long> storedAtTheKill = completedStore(cluster.jobDirectory(jobId));
        List<Long> triggeredBeforeTheKill = triggeredIds(jobManagerLogs(cluster), jobId);
        HaCluster.JobManager second = cluster.awaitNewLeader(first, oldSession, HaCluster.FAILOVER_TIMEOUT);

        assertThat(storedAtTheKill).as("completed checkpoints in the HA store at the kill").containsExactly(latest);
        assertThat(triggeredBeforeTheKill).as("checkpoints triggered before the kill").last().isEqualTo(stalled);
        JobCheckpoints after = awaitCheckpointAfter(stalled, () -> cluster.checkpoints(jobId));
        assertThat(after.getRestoredFromId()).as("what the new leader restored").isEqualTo(latest);
        assertThat(cluster.logText(second.name)).contains("Job " + jobId + ": tasks restore checkpoint " + latest
                + " of job " + jobId);
        assertThat(after.getCheckpointsList()).as("the new leader's checkpoints").isNotEmpty()
                .allMatch(c -> c.getCheckpointId() > stalled);
        assertIdsIncrease(after);
        awaitNoFilesOfTheAbortedCheckpoint(jobId, stalled, acknowledged, () -> cluster.status(jobId));

        JobResult result = cluster.awaitResult(jobId, JOB_TIMEOUT);
        assertFinished(result, 0);
        assertExactlyOnceOutput(jobId);
        List<Long> triggered = triggeredIds(jobManagerLogs(cluster), jobId);
        assertThat(triggered).as("checkpoints triggered by either JobManager, in time order").isSorted()
                .doesNotHaveDuplicates().startsWith(triggeredBeforeTheKill.toArray(Long[]::new));
        assertThat(triggered.subList(triggeredBeforeTheKill.size(), triggered.size()))
                .as("checkpoints triggered after the kill").isNotEmpty().allMatch(id -> id > stalled);
        awaitGone(checkpoints().resolve(jobId), "the finished job's checkpoints (retention delete-on-cancellation)");
        System.out.printf("%s: killed %s during checkpoint %d, %,d lines committed; %s took over, restored %d%n",
                jobId, first, stalled, committed, second.name, after.getRestoredFromId());
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
        TestCluster cluster = startCluster(2, 4);
        String jobId = "tm-killed-during-final-checkpoint";
        Map<String, String> params = new LinkedHashMap<>(stallingParams(jobId));
        params.put("stall-at-end", "true");
        try (ClusterClient client = new ClusterClient(cluster.address())) {
            client.submit(SubmitJobRequest.newBuilder().setJobId(jobId).setJobClass(STALLING).putAllParams(params)
                    .putAllConfig(checkpointing()).setParallelism(2).build());

            StallingKeyedSum.Stall stall = awaitStall(() -> cluster.status(jobId));
            long stalled = stall.checkpointId();
            JobStatus atTheKill = cluster.status(jobId);
            long latest = assertHeldOpen(client.checkpoints(jobId), stalled);
            assertThat(TestCluster.vertex(atTheKill, "Generate records").getFinished())
                    .as("source tasks finished when the final checkpoint is held: %s", atTheKill).isEqualTo(2);
            int victim = cluster.taskManagerIndexOfPid(stall.pid());
            cluster.killTaskManager(victim);

            JobResult result = cluster.awaitResult(jobId, JOB_TIMEOUT);
            assertFinished(result, 1);
            assertThat(firstRestore(cluster.logText("jobmanager"), jobId)).as("the first restore of the job")
                    .isEqualTo(latest);
            assertExactlyOnceOutput(jobId);
            awaitGone(checkpoints().resolve(jobId), "the finished job's checkpoints (retention delete-on-cancellation)");
            System.out.printf("%s: killed taskmanager-%d during checkpoint %d (the sources had finished); %d restarts%n",
                    jobId, victim, stalled, result.getStatus().getRestarts());
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
        TestCluster cluster = startCluster(1, 8);
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

    /** Waits until the stalling subtask holds a checkpoint open; returns which, and the pid of its TaskManager. */
    private StallingKeyedSum.Stall awaitStall(Supplier<JobStatus> status) throws IOException {
        await("subtask 0 of 'Sum per key' holds a checkpoint open").atMost(JOB_TIMEOUT).pollInterval(POLL)
                .failFast("the job ended", () -> JobRunner.isTerminal(status.get().getState()))
                .until(() -> Files.exists(marker()));
        return StallingKeyedSum.Stall.read(marker());
    }

    /**
     * Waits until the tasks that can acknowledge the stalled checkpoint did (the two sources and
     * the other "Sum per key" subtask, with the sink chained to it: the checkpoint counts their
     * files) and returns the files they wrote into its {@code chk-<n>}.
     */
    private List<Path> awaitAcknowledgedFiles(String jobId, long stalled, Supplier<JobCheckpoints> checkpoints) {
        return awaitAcknowledgedFiles(jobId, stalled, checkpoints, false);
    }

    /**
     * As above; with {@code incremental}, the checkpoint also counts SST files under {@code shared/}
     * (new or reused), so only its own files in {@code chk-<n>} (MANIFEST, CURRENT, OPTIONS, the
     * backend's metadata, operator state) are awaited.
     */
    private List<Path> awaitAcknowledgedFiles(String jobId, long stalled, Supplier<JobCheckpoints> checkpoints,
            boolean incremental) {
        Path directory = checkpoints().resolve(jobId).resolve("chk-" + stalled);
        return await("the other tasks' state files of checkpoint " + stalled).atMost(JOB_TIMEOUT).pollInterval(POLL)
                .until(() -> {
                    CheckpointSummary summary = summary(checkpoints.get(), stalled);
                    List<Path> files = regularFiles(directory);
                    if (summary == null || summary.getFiles() < 3) {
                        return List.<Path>of();
                    }
                    return files.size() >= (incremental ? 3 : summary.getFiles()) ? files : List.<Path>of();
                }, files -> !files.isEmpty());
    }

    /**
     * Waits until the output has committed lines (those of checkpoint n-1 at least: the other
     * subtask's sink commits them when it learns that the checkpoint completed); returns how many.
     */
    private int awaitCommittedOutput(String jobId) {
        return await("lines committed to " + output(jobId)).atMost(Duration.ofSeconds(30)).pollInterval(POLL)
                .until(() -> StreamingKeyedSum.readOutput(output(jobId)).size(), lines -> lines > 0);
    }

    /**
     * Checkpoint n is in progress, an earlier one completed, nothing later was started; returns
     * the latest completed (usually n-1; a final checkpoint that a finishing source missed is
     * aborted and skipped).
     */
    private static long assertHeldOpen(JobCheckpoints checkpoints, long stalled) {
        CheckpointSummary summary = summary(checkpoints, stalled);
        assertThat(summary).as("checkpoint %d in %s", stalled, checkpoints).isNotNull();
        assertThat(summary.getStatus()).as("checkpoint %d at the kill", stalled).isEqualTo("IN_PROGRESS");
        assertThat(checkpoints.getLatestCompletedId()).as("latest completed at the kill").isBetween(1L, stalled - 1);
        assertThat(checkpoints.getCheckpointsList()).as("checkpoints at the kill")
                .allMatch(c -> c.getCheckpointId() <= stalled);
        return checkpoints.getLatestCompletedId();
    }

    /** Waits until a checkpoint after the stalled one completed; returns the statistics then. */
    private static JobCheckpoints awaitCheckpointAfter(long stalled, Supplier<JobCheckpoints> checkpoints) {
        return await("a checkpoint after " + stalled + " completes").atMost(JOB_TIMEOUT).pollInterval(POLL)
                .ignoreException(CliException.class)
                .until(checkpoints::get, c -> c.getCheckpointsList().stream()
                        .anyMatch(s -> s.getCheckpointId() > stalled && s.getStatus().equals("COMPLETED")));
    }

    /**
     * The aborted checkpoint's files are gone and its directory holds no file (a task that was
     * still writing may re-create the directory; the next completion deletes it), while the job
     * still runs: once it ended, the retention deletes every checkpoint directory anyway.
     */
    private void awaitNoFilesOfTheAbortedCheckpoint(String jobId, long stalled, List<Path> acknowledged,
            Supplier<JobStatus> status) {
        Path directory = checkpoints().resolve(jobId).resolve("chk-" + stalled);
        await("no file left under " + directory + " while the job runs").atMost(Duration.ofSeconds(30))
                .pollInterval(POLL)
                .failFast("the job ended first", () -> JobRunner.isTerminal(status.get().getState()))
                .until(() -> regularFiles(directory).isEmpty());
        assertThat(acknowledged).as("files the tasks wrote for checkpoint %d", stalled).noneMatch(Files::exists);
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

    /** The JobManagers' log lines, each starting with its time of day (HH:mm:ss.SSS), merged in time order. */
    private static List<String> jobManagerLogs(HaCluster cluster) {
        List<String> lines = new ArrayList<>();
        for (HaCluster.JobManager jm : cluster.jobManagers()) {
            cluster.logText(jm.name).lines().filter(line -> line.matches("\\d\\d:\\d\\d:\\d\\d\\.\\d{3} .*"))
                    .forEach(lines::add);
        }
        lines.sort(java.util.Comparator.comparing(line -> line.substring(0, 12)));
        return lines;
    }

    /** Ids of the job's checkpoints the log lines say were triggered, in their order. */
    private static List<Long> triggeredIds(List<String> lines, String jobId) {
        List<Long> ids = new ArrayList<>();
        for (String line : lines) {
            Matcher matcher = TRIGGERED.matcher(line);
            if (matcher.find() && matcher.group(2).equals(jobId)) {
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
