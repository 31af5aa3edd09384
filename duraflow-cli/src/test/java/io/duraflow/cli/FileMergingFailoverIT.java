package io.duraflow.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.duraflow.checkpoint.CheckpointVerifier;
import io.duraflow.cli.MergedCheckpoints.Merging;
import io.duraflow.examples.StreamingKeyedSum;
import io.duraflow.ha.LeaderInfo;
import io.duraflow.rpc.proto.CheckpointSummary;
import io.duraflow.rpc.proto.JobCheckpoints;
import io.duraflow.rpc.proto.JobResult;
import io.duraflow.rpc.proto.JobState;
import io.duraflow.rpc.proto.SubmitJobRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Checkpoint file merging under SIGKILLs of TaskManagers and of the leader JobManager,
 * against real processes: ZooKeeper, two JobManagers (one leads, one stands by), two TaskManagers
 * with 16 slots each (tasks spread over both, so a TaskManager's death hits every job), shared by
 * the tests; every killed process is replaced, so each test starts with the same cluster. Jobs run
 * {@link StreamingKeyedSum} (or {@link StallingKeyedSum}, to kill during a checkpoint for sure)
 * on RocksDB with incremental checkpoints every 300 ms and nothing inlined. Every job must:
 * <ul>
 *   <li>finish with exactly-once output (every key's line once, with the right sum and count);</li>
 *   <li>with {@code retain-on-cancellation}: leave exactly its retained checkpoint and the files it
 *       refers to ({@link CheckpointVerifier}: no missing, corrupt or orphan file), which are merged
 *       (fewer physical files than segments, under {@code shared/subtask-*} and {@code taskowned/*});</li>
 *   <li>with the default retention: leave no directory.</li>
 * </ul>
 */
class FileMergingFailoverIT {
    private static final Duration JOB_TIMEOUT = Duration.ofMinutes(3);
    private static final Duration POLL = Duration.ofMillis(50);
    private static final String INTERVAL = "300ms";

    @RegisterExtension
    static final LogsOnFailure LOGS = new LogsOnFailure();

    @TempDir
    static Path tempDir;

    private static HaCluster cluster;
    private final long started = System.nanoTime();

    @BeforeAll
    static void startCluster() throws Exception {
        Map<String, String> config = new LinkedHashMap<>();
        config.put("taskmanager.slots", "16");
        // Kills come in quick succession; a restart that deploys onto a TaskManager about to be
        // declared dead fails again and counts once more.
        config.put("restart-strategy.fixed-delay.attempts", "100");
        cluster = HaCluster.start(LOGS.watch(tempDir.resolve("cluster")), ZooKeeperServer.shared(), 2, 2, config);
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

    private static Path checkpoints() {
        return tempDir.resolve("checkpoints");
    }

    private static Path jobDirectory(String jobId) {
        return checkpoints().resolve(jobId);
    }

    private static Path output(String jobId) {
        return tempDir.resolve("output").resolve(jobId);
    }

    private void printTime(TestInfo test) {
        System.out.printf("%s: %.1f s%n", test.getDisplayName(), (System.nanoTime() - started) / 1e9);
    }

    // ------------------------------------------------------------------ scenarios

    /**
     * Two jobs at once: one merging within checkpoints with {@code retain-on-cancellation}, one
     * merging across them with the default retention. Subtask 0 of the within job's "Sum per key"
     * holds checkpoint n open ({@link StallingKeyedSum}) after other tasks acknowledged it, so
     * their merged files for n exist; its TaskManager is SIGKILLed. Both jobs restore on the other
     * TaskManager; the merged files written for n (nothing completed refers to them) are deleted
     * while the job runs, and so is a file named for n that appears after the restore (as a late
     * write of a cancelled task would; the verifier counts no orphan of that run). Then the leader
     * is SIGKILLed during a checkpoint; the standby takes over and adopts both jobs' running tasks,
     * whose merged files go on. Both finish with exact output; the within job's retained
     * checkpoint verifies clean and merged, the across job's directory is gone. (The random test verifies
     * jobs merging across checkpoints.)
     */
    @Test
    void withinAndAcrossMergingThroughATaskManagerAndALeaderKill(TestInfo test) throws Exception {
        long records = 160_000;
        long keys = 80_000;
        String within = "within-killed";
        String across = "across-killed";
        Path marker = tempDir.resolve("stalled-" + within);
        Map<String, String> stalling = MergedCheckpoints.keyedSum(records, keys, 8_000, output(within));
        stalling.put("stall-after-results", "200");
        stalling.put("stall-marker", marker.toString());
        cluster.submit(SubmitJobRequest.newBuilder().setJobId(within).setJobClass(StallingKeyedSum.class.getName())
                .putAllParams(stalling).putAllConfig(MergedCheckpoints.config(checkpoints(), INTERVAL, Merging.WITHIN,
                        true)).setParallelism(2).build());
        cluster.submit(SubmitJobRequest.newBuilder().setJobId(across).setJobClass(StreamingKeyedSum.class.getName())
                .putAllParams(MergedCheckpoints.keyedSum(records, keys, 8_000, output(across)))
                .putAllConfig(MergedCheckpoints.config(checkpoints(), INTERVAL, Merging.ACROSS, false))
                .setParallelism(2).build());

        await("subtask 0 of the within job's 'Sum per key' holds a checkpoint open").atMost(JOB_TIMEOUT)
                .pollInterval(POLL).ignoreException(CliException.class)
                .failFast("the job ended", () -> JobRunner.isTerminal(cluster.status(within).getState()))
                .until(() -> Files.exists(marker));
        StallingKeyedSum.Stall stall = StallingKeyedSum.Stall.read(marker);
        long stalled = stall.checkpointId();
        await("the other tasks acknowledged checkpoint " + stalled).atMost(JOB_TIMEOUT).pollInterval(POLL)
                .until(() -> summary(cluster.checkpoints(within), stalled).map(CheckpointSummary::getFiles).orElse(0)
                        >= 2);
        JobCheckpoints atTheKill = cluster.checkpoints(within);
        long latest = atTheKill.getLatestCompletedId();
        assertThat(summary(atTheKill, stalled).orElseThrow().getStatus()).as("checkpoint %d at the kill", stalled)
                .isEqualTo("IN_PROGRESS");
        // Merging within checkpoints: a physical file holds segments of one checkpoint only, so the
        // merged files the latest completed checkpoint does not refer to are those of the held one
        // (or of subsumed ones, about to be deleted).
        Set<Path> ofLatest = MergedCheckpoints.referencedFiles(jobDirectory(within).resolve("chk-" + latest)
                .resolve("_metadata"));
        List<Path> ofTheHeld = new ArrayList<>(MergedCheckpoints.mergedFiles(jobDirectory(within)));
        ofTheHeld.removeAll(ofLatest);
        assertThat(ofTheHeld).as("merged files written for the held checkpoint %d", stalled).isNotEmpty();
        long acrossBefore = cluster.checkpoints(across).getLatestCompletedId();

        int victim = cluster.taskManagerIndexOfPid(stall.pid());
        cluster.killTaskManager(victim);
        cluster.addTaskManager();
        awaitCompletedAfter(within, stalled);
        awaitCompletedAfter(across, acrossBefore);
        await("no merged file of the aborted checkpoint " + stalled + " left while the job runs")
                .atMost(Duration.ofSeconds(60)).pollInterval(POLL)
                .failFast("the job ended first", () -> JobRunner.isTerminal(cluster.status(within).getState()))
                .until(() -> ofTheHeld.stream().noneMatch(Files::exists));
        // A task of the run that ended may still write after the restore listed the directories (as a
        // kept task does that a new leader cancels instead of adopting): such a file, named for a
        // checkpoint of that run, goes while the job runs once nothing refers to it and it stopped growing.
        Path late = jobDirectory(within).resolve("shared").resolve(MergedCheckpoints.mergingDirectories(
                jobDirectory(within), "shared").get(0)).resolve("cp" + stalled + "-" + java.util.UUID.randomUUID());
        Files.write(late, new byte[4096]);
        await("the late merged file of the ended run deleted while the job runs").atMost(Duration.ofSeconds(60))
                .pollInterval(POLL)
                .failFast("the job ended first", () -> JobRunner.isTerminal(cluster.status(within).getState()))
                .until(() -> !Files.exists(late));
        await("no orphan of the ended run while the job runs (checkpoints verify)").atMost(Duration.ofSeconds(30))
                .pollInterval(POLL).ignoreException(java.io.IOException.class)
                .until(() -> earlierRunOrphans(MergedCheckpoints.verify(jobDirectory(within)), stalled), List::isEmpty);

        // The leader dies while a checkpoint of the within job is in progress.
        await("a checkpoint of " + within + " in progress").atMost(JOB_TIMEOUT).pollInterval(Duration.ofMillis(20))
                .failFast("the job ended first", () -> JobRunner.isTerminal(cluster.status(within).getState()))
                .until(() -> inProgress(cluster.checkpoints(within)).isPresent());
        HaCluster.JobManager leader = cluster.leader().orElseThrow();
        LeaderInfo session = cluster.leaderInfo();
        cluster.kill(leader);
        cluster.startJobManager();
        HaCluster.JobManager next = cluster.awaitNewLeader(leader, session, HaCluster.FAILOVER_TIMEOUT);

        awaitFinishedAndChecked(within, true, records, keys);
        awaitFinishedAndChecked(across, false, records, keys);
        // The TaskManagers kept the tasks and the new leader adopted them: their merged
        // files went on growing through the leader change, and the checks above found none missing,
        // corrupt or left over.
        assertThat(cluster.logText(next.name)).as("log of the new leader %s", next.name)
                .contains("Job " + within + ": adopted all 4 tasks")
                .contains("Job " + across + ": adopted all 4 tasks");
        System.out.printf("killed taskmanager-%d while it held checkpoint %d of %s (%d merged files of it deleted),"
                + " then %s; %s took over%n", victim, stalled, within, ofTheHeld.size(), leader.name, next.name);
        cluster.awaitRegisteredTaskManagers(2, HaCluster.STARTUP_TIMEOUT);
        printTime(test);
    }

    /**
     * Rounds of two jobs whose TaskManagers or leader are SIGKILLed at random moments during
     * checkpoints: after a random number of completed checkpoints of the first job, once its next
     * checkpoint is in progress and a random number of its files were acknowledged (0 to 2); 1 or 2
     * kills per round, a third of them of the leader. Rounds alternate merging within and across
     * checkpoints. Each round, for both jobs: exact output; for the first ({@code
     * retain-on-cancellation}): 0 missing, 0 corrupt, 0 orphan files, merged; for the second (default
     * retention): no directory left. {@code -Dfilemerging.rounds=N} runs more rounds (3 by default);
     * {@code -Dfilemerging.seed=S} replays a printed seed (the kills' moments, not the machine's
     * timing).
     */
    @Test
    void randomKillsDuringCheckpoints(TestInfo test) throws Exception {
        int rounds = Integer.getInteger("filemerging.rounds", 3);
        long seed = Long.getLong("filemerging.seed", System.nanoTime());
        System.out.printf("randomKillsDuringCheckpoints: %d rounds, seed %d (replay: -Dfilemerging.seed=%d"
                + " -Dfilemerging.rounds=%d)%n", rounds, seed, seed, rounds);
        Random random = new Random(seed);
        long records = 80_000;
        long keys = 40_000;
        for (int round = 0; round < rounds; round++) {
            Merging merging = round % 2 == 0 ? Merging.WITHIN : Merging.ACROSS;
            String jobId = "random-" + round;
            String deleted = "random-" + round + "-deleted";
            int plannedKills = 1 + random.nextInt(2);
            for (String id : List.of(jobId, deleted)) {
                cluster.submit(SubmitJobRequest.newBuilder().setJobId(id).setJobClass(StreamingKeyedSum.class.getName())
                        .putAllParams(MergedCheckpoints.keyedSum(records, keys, 8_000, output(id)))
                        .putAllConfig(MergedCheckpoints.config(checkpoints(), INTERVAL, merging, id.equals(jobId)))
                        .setParallelism(2).build());
            }
            List<String> kills = new ArrayList<>();
            long completedBefore = 0;
            for (int kill = 0; kill < plannedKills; kill++) {
                int afterCompleted = 1 + random.nextInt(3);
                int afterAcknowledged = random.nextInt(3);
                boolean leader = random.nextInt(3) == 0;
                long completedAtLeast = completedBefore + afterCompleted;
                Optional<CheckpointSummary> during = awaitKillMoment(jobId, completedAtLeast, afterAcknowledged);
                if (during.isEmpty()) {
                    break; // the job finished first
                }
                String victim = leader ? killLeader() : killTaskManager(random);
                kills.add(victim + " during checkpoint " + during.get().getCheckpointId() + " (" + during.get()
                        .getFiles() + " files acknowledged)");
                completedBefore = awaitCompletedAfterOrEnd(jobId, during.get().getCheckpointId());
            }
            System.out.printf("round %d (%s): %s%n", round, merging, kills);
            assertThat(kills).as("kills in round %d: the job finished before the first", round).isNotEmpty();
            awaitFinishedAndChecked(jobId, true, records, keys);
            awaitFinishedAndChecked(deleted, false, records, keys);
            cluster.awaitRegisteredTaskManagers(2, HaCluster.STARTUP_TIMEOUT);
        }
        printTime(test);
    }

    /**
     * The job finishes with exact output; retained: its directory verifies clean (after its
     * cleanup ran) and merged; otherwise the directory is gone.
     */
    private static void awaitFinishedAndChecked(String jobId, boolean retained, long records, long keys)
            throws Exception {
        JobResult result = cluster.awaitResult(jobId, JOB_TIMEOUT);
        assertThat(result.getStatus().getState()).as("state of %s, failure '%s'", jobId,
                result.getStatus().getFailure()).isEqualTo(JobState.JOB_FINISHED);
        MergedCheckpoints.assertExactOutput(output(jobId), records, keys);
        if (retained) {
            awaitRetentionStep(jobId, "FINISHED");
            CheckpointVerifier.Report report = MergedCheckpoints.awaitClean(jobDirectory(jobId));
            MergedCheckpoints.assertMerged(report, jobDirectory(jobId));
            System.out.printf("%s: %s%n", jobId, MergedCheckpoints.describe(report));
        } else {
            await("the checkpoints of " + jobId + " deleted (default retention)").atMost(Duration.ofSeconds(60))
                    .pollInterval(POLL).until(() -> !Files.exists(jobDirectory(jobId)));
        }
    }

    // ------------------------------------------------------------------ kills

    /**
     * Waits until the job completed at least {@code completedAtLeast} checkpoints (ids) and its
     * newest checkpoint is in progress with at least {@code acknowledged} files acknowledged;
     * returns that checkpoint, or empty if the job ended first.
     */
    private static Optional<CheckpointSummary> awaitKillMoment(String jobId, long completedAtLeast,
            int acknowledged) {
        Optional<CheckpointSummary> moment = await("a checkpoint of " + jobId + " in progress after checkpoint "
                + completedAtLeast + " with " + acknowledged + " files acknowledged").atMost(JOB_TIMEOUT)
                .pollInterval(Duration.ofMillis(20)).ignoreException(CliException.class)
                .until(() -> {
                    if (JobRunner.isTerminal(cluster.status(jobId).getState())) {
                        return Optional.of(CheckpointSummary.getDefaultInstance());
                    }
                    JobCheckpoints checkpoints = cluster.checkpoints(jobId);
                    return checkpoints.getLatestCompletedId() >= completedAtLeast ? inProgress(checkpoints)
                            .filter(c -> c.getFiles() >= acknowledged) : Optional.<CheckpointSummary>empty();
                }, Optional::isPresent);
        return moment.filter(c -> c.getCheckpointId() > 0);
    }

    private static String killLeader() throws Exception {
        HaCluster.JobManager leader = cluster.leader().orElseThrow();
        LeaderInfo session = cluster.leaderInfo();
        cluster.kill(leader);
        cluster.startJobManager();
        HaCluster.JobManager next = cluster.awaitNewLeader(leader, session, HaCluster.FAILOVER_TIMEOUT);
        return "leader " + leader.name + " (" + next.name + " took over)";
    }

    private static String killTaskManager(Random random) throws Exception {
        List<Integer> live = cluster.liveTaskManagers();
        int victim = live.get(random.nextInt(live.size()));
        cluster.killTaskManager(victim);
        cluster.addTaskManager();
        return "taskmanager-" + victim;
    }

    // ------------------------------------------------------------------ waiting

    private static void awaitCompletedAfter(String jobId, long id) {
        await("a checkpoint of " + jobId + " after " + id + " completes").atMost(JOB_TIMEOUT).pollInterval(POLL)
                .ignoreException(CliException.class)
                .until(() -> cluster.checkpoints(jobId).getLatestCompletedId() > id);
    }

    /** Waits until a checkpoint after {@code id} completed or the job ended; returns the latest completed id (0 if it ended). */
    private static long awaitCompletedAfterOrEnd(String jobId, long id) {
        return await("a checkpoint of " + jobId + " after " + id + " completes, or the job ends").atMost(JOB_TIMEOUT)
                .pollInterval(POLL).ignoreException(CliException.class)
                .until(() -> JobRunner.isTerminal(cluster.status(jobId).getState()) ? Long.MAX_VALUE
                        : cluster.checkpoints(jobId).getLatestCompletedId(), latest -> latest > id);
    }

    /** Waits until a JobManager logged that the ended job's retained checkpoints stay (its cleanup ran). */
    private static void awaitRetentionStep(String jobId, String state) {
        await("the cleanup of " + jobId + " ran").atMost(Duration.ofSeconds(60)).pollInterval(POLL)
                .until(() -> !cluster.jobManagerLines("Job " + jobId + " ended as " + state + ": its checkpoints stay"
                        + " under").isEmpty());
    }

    /** The orphans the verifier counts that a run before checkpoint {@code lastOfEndedRun} created (by their names). */
    private static List<Path> earlierRunOrphans(CheckpointVerifier.Report report, long lastOfEndedRun) {
        return report.scan().orphans().stream().map(file -> Path.of(file.toString()))
                .filter(file -> io.duraflow.state.filemerging.MergedFileNames.createdFor(file.getFileName().toString())
                        .orElse(Long.MAX_VALUE) <= lastOfEndedRun).toList();
    }

    private static Optional<CheckpointSummary> summary(JobCheckpoints checkpoints, long id) {
        return checkpoints.getCheckpointsList().stream().filter(c -> c.getCheckpointId() == id).findFirst();
    }

    private static Optional<CheckpointSummary> inProgress(JobCheckpoints checkpoints) {
        List<CheckpointSummary> list = checkpoints.getCheckpointsList();
        return list.isEmpty() ? Optional.empty() : Optional.of(list.get(list.size() - 1))
                .filter(c -> c.getStatus().equals("IN_PROGRESS"));
    }
}
