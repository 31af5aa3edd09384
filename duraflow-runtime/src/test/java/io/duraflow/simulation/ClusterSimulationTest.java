package io.duraflow.simulation;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.examples.StreamingKeyedSum;
import io.duraflow.examples.WordCount;
import io.duraflow.jobmanager.events.JobEventReader;
import io.duraflow.jobmanager.events.proto.JobEvent;
import io.duraflow.jobstore.CollectedData;
import io.duraflow.jobstore.JobOutcome;
import io.duraflow.jobstore.JobResultEntry;
import io.duraflow.rpc.proto.SubmitJobRequest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Properties of a whole simulated cluster ({@link SimCluster}): the real control plane of the
 * JobManagers and TaskManagers, simulated tasks, an in-memory network and ZooKeeper, one thread,
 * one seed per run. Each property runs over several seeds; the {@link Invariants} hold after
 * every step of every run.
 */
class ClusterSimulationTest {
    static final String BATCH_JOB = "words";
    static final String STREAMING_JOB = "sums";
    static final int SPLITS = 16;

    @TempDir
    Path tempDir;

    // ------------------------------------------------------------------ batch

    /**
     * Odd seeds keep running tasks across the leader change (adoption): then no task that had
     * started before the kill and still ran when the new leader was elected runs again. (A source
     * task that finished while no leader was up runs again by design: the finish it reports to
     * the new leader is ignored, since its last split assignments may be missing from the log.)
     */
    @Test
    void aBatchLeaderChangeKeepsTheFinishedWork() throws Exception {
        for (long seed = 0; seed < 8; seed++) {
            boolean adoption = seed % 2 == 1;
            SimCluster cluster = batchCluster(seed, Map.of("taskmanager.leader-loss.timeout", adoption ? "60s" : "0"));
            try {
                TakeOver takeOver = deposeTheFirstLeader(cluster, seed, cluster::kill);
                assertThat(cluster.runUntil(() -> cluster.hasResult(BATCH_JOB), 120_000))
                        .as("seed %d: the job ended\n%s", seed, cluster.trace().tail(40)).isTrue();

                assertBatchResult(cluster, seed);
                assertNoneRanAgain(cluster, seed, takeOver.durable(), adoption ? takeOver.running() : List.of());
            } finally {
                finish(cluster, "batch-leader-change", seed);
            }
        }
    }

    /**
     * The leader freezes while sources run, long enough to lose its session; the standby takes
     * over and adopts the running tasks (TaskManagers keep them); the old leader thaws, finds it
     * was deposed and stands by. No task that ran at the take-over or had finished before the
     * freeze runs again, and the counts are exact.
     */
    @Test
    void aFrozenBatchLeaderThatThawsAfterTheAdoptionDisturbsNothing() throws Exception {
        for (long seed = 0; seed < 4; seed++) {
            SimCluster cluster = batchCluster(seed, Map.of("taskmanager.leader-loss.timeout", "60s"));
            try {
                TakeOver takeOver = deposeTheFirstLeader(cluster, seed, cluster::freeze);
                cluster.runFor(100);
                assertThat(cluster.hasResult(BATCH_JOB)).as("seed %d: the job still runs at the thaw", seed).isFalse();
                cluster.thaw(takeOver.first());
                assertThat(cluster.runUntil(() -> cluster.hasResult(BATCH_JOB), 120_000))
                        .as("seed %d: the job ended\n%s", seed, cluster.trace().tail(40)).isTrue();

                assertBatchResult(cluster, seed);
                assertNoneRanAgain(cluster, seed, takeOver.durable(), takeOver.running());
                assertThat(cluster.runUntil(() -> cluster.trace().lines().stream()
                        .anyMatch(line -> line.endsWith("jm-1: stands by (was s1)")), 30_000))
                        .as("seed %d: the thawed leader stood by\n%s", seed, cluster.trace().tail(20)).isTrue();
            } finally {
                finish(cluster, "batch-frozen-leader", seed);
            }
        }
    }

    /**
     * The leader is killed three times during one job (and started again as a standby): twice
     * once more work finished and is in the job event log than at the kill before, the third time
     * the moment the last (counting) task finished, before its report reached the leader, so the
     * job's result is not stored yet. Every task finished at a kill keeps its attempt to the end
     * (the last one's finish reaches the next leader with the TaskManager's registration); odd
     * seeds keep running tasks across the leader changes (adoption).
     */
    @Test
    void aBatchJobKeepsItsFinishedWorkThroughSeveralLeaderKills() throws Exception {
        for (long seed = 0; seed < 8; seed++) {
            boolean adoption = seed % 2 == 1;
            SimCluster cluster = batchCluster(seed, Map.of("taskmanager.leader-loss.timeout", adoption ? "60s" : "0"));
            try {
                awaitLeader(cluster);
                cluster.submit(batchJob().toBuilder().setParallelism(4).build());
                Set<String> durable = new HashSet<>();
                int kills = 0;
                while (kills < 3) {
                    int before = durable.size();
                    long[] lastRead = {0};
                    BooleanSupplier killPoint = kills < 2
                            ? () -> cluster.scheduler().now() >= lastRead[0] + 20
                                    && (lastRead[0] = cluster.scheduler().now()) >= 0
                                    && finishedDurable(cluster, durable, false) && durable.size() > before
                            : () -> cluster.trace().tail(1).matches(".*: " + BATCH_JOB + "/v1/\\d+#\\d+ FINISHED");
                    assertThat(cluster.runUntil(() -> cluster.hasResult(BATCH_JOB) || killPoint.getAsBoolean(),
                            60_000)).as("seed %d: more work finished\n%s", seed, cluster.trace().tail(40)).isTrue();
                    if (cluster.hasResult(BATCH_JOB)) {
                        break;
                    }
                    if (kills == 2) {
                        // "6916 tm-2: words/v1/0#0 FINISHED": its report has not reached the leader
                        String line = cluster.trace().tail(1);
                        String task = line.substring(line.indexOf('/') + 2, line.lastIndexOf(' '));
                        durable.add(task + "@" + line.substring(line.indexOf(' ') + 1, line.indexOf(':')));
                    }
                    SimJobManager leader = cluster.leader();
                    cluster.kill(leader);
                    cluster.startJobManager(leader.name());
                    kills++;
                    awaitLeader(cluster);
                }
                assertThat(kills).as("seed %d: leaders killed before the job ended", seed).isEqualTo(3);
                assertThat(cluster.runUntil(() -> cluster.hasResult(BATCH_JOB), 120_000))
                        .as("seed %d: the job ended\n%s", seed, cluster.trace().tail(40)).isTrue();

                assertBatchResult(cluster, seed);
                assertNoneRanAgain(cluster, seed, durable, List.of());
            } finally {
                finish(cluster, "batch-several-leader-kills", seed);
            }
        }
    }

    /**
     * Odd seeds keep running tasks across the leader change (adoption): the kept tasks of the lost
     * TaskManager are gone with it, the others' finished work still counts.
     */
    @Test
    void aBatchTaskManagerLostWhileNoLeaderIsUpCostsOnlyItsOutput() throws Exception {
        for (long seed = 0; seed < 8; seed++) {
            boolean adoption = seed % 2 == 1;
            SimCluster cluster = batchCluster(seed, Map.of("taskmanager.leader-loss.timeout", adoption ? "60s" : "0"));
            try {
                SimJobManager first = awaitLeader(cluster);
                cluster.submit(batchJob());
                Set<String> durable = awaitDurableSources(cluster, seed);
                String lostTm = tmOf(durable.iterator().next());
                cluster.kill(first);
                cluster.kill(cluster.liveTaskManager(lostTm).orElseThrow());
                cluster.startTaskManager("tm-4");
                assertOnlyTheLostWorkRunsAgain(cluster, seed, durable, lostTm);
            } finally {
                finish(cluster, "batch-tm-lost-without-leader", seed);
            }
        }
    }

    @Test
    void aBatchTaskManagerLostRerunsOnlyItsWork() throws Exception {
        for (long seed = 0; seed < 6; seed++) {
            SimCluster cluster = batchCluster(seed, Map.of());
            try {
                awaitLeader(cluster);
                cluster.submit(batchJob());
                Set<String> durable = awaitDurableSources(cluster, seed);
                String lostTm = tmOf(durable.iterator().next());
                cluster.kill(cluster.liveTaskManager(lostTm).orElseThrow());
                assertOnlyTheLostWorkRunsAgain(cluster, seed, durable, lostTm);
            } finally {
                finish(cluster, "batch-tm-lost", seed);
            }
        }
    }

    /**
     * A source task's TaskManager dies while the task reads its splits: the task runs again on
     * another TaskManager, the splits it had read go back to the enumerator, and every split is
     * counted exactly once.
     */
    @Test
    void aBatchSourceWhoseTaskManagerDiesWhileItReadsRunsAgainElsewhere() throws Exception {
        for (long seed = 0; seed < 6; seed++) {
            SimCluster cluster = batchCluster(seed, Map.of());
            try {
                awaitLeader(cluster);
                cluster.submit(batchJob());
                assertThat(cluster.runUntil(() -> cluster.invariants().started().stream()
                        .anyMatch(s -> s.vertex() == 0), 60_000)).as("seed %d: a source started", seed).isTrue();
                cluster.runFor(150);
                Invariants.Started running = cluster.invariants().started().stream().filter(s -> s.vertex() == 0
                        && !cluster.invariants().hasEnded(s.tmId(), s.jobId(), 0, s.subtask(), s.attempt()))
                        .findFirst().orElse(null);
                assertThat(running).as("seed %d: a source still reads", seed).isNotNull();
                cluster.kill(cluster.liveTaskManager(running.tmId()).orElseThrow());
                assertThat(cluster.runUntil(() -> cluster.hasResult(BATCH_JOB), 120_000))
                        .as("seed %d: the job ended\n%s", seed, cluster.trace().tail(40)).isTrue();

                assertBatchResult(cluster, seed);
                assertThat(restarts(cluster, "0/" + running.subtask() + "#" + running.attempt() + "@" + running.tmId()))
                        .as("seed %d: the killed source ran again", seed).isNotEmpty()
                        .allMatch(again -> !again.tmId().equals(running.tmId()));
            } finally {
                finish(cluster, "batch-source-tm-lost", seed);
            }
        }
    }

    /**
     * Where a batch job stood when its first leader was deposed: "vertex/subtask#attempt@tm" of
     * the sources whose finish was durable before, and the tasks that still ran at the take-over.
     */
    private record TakeOver(SimJobManager first, Set<String> durable, List<Invariants.Started> running) {}

    /**
     * Runs the batch job until a source's finish is durable, deposes the leader ({@code depose}:
     * kill or freeze) and waits until another one leads.
     */
    private static TakeOver deposeTheFirstLeader(SimCluster cluster, long seed,
            java.util.function.Consumer<SimJobManager> depose) {
        SimJobManager first = awaitLeader(cluster);
        cluster.submit(batchJob());
        Set<String> durable = awaitDurableSources(cluster, seed);
        List<Invariants.Started> startedBefore = List.copyOf(cluster.invariants().started());
        depose.accept(first);
        assertThat(cluster.runUntil(() -> cluster.leader() != null && cluster.leader() != first, 60_000))
                .as("seed %d: a new leader", seed).isTrue();
        List<Invariants.Started> running = startedBefore.stream().filter(s -> !cluster.invariants()
                .hasEnded(s.tmId(), s.jobId(), s.vertex(), s.subtask(), s.attempt())).toList();
        return new TakeOver(first, durable, running);
    }

    /**
     * Neither a task whose finish was durable ("vertex/subtask#attempt@tm") nor one that ran when
     * the new leader took over started again with a higher attempt.
     */
    private static void assertNoneRanAgain(SimCluster cluster, long seed, Set<String> durable,
            List<Invariants.Started> runningAtTakeOver) {
        for (String finished : durable) {
            assertThat(restarts(cluster, finished)).as("seed %d: %s had finished and ran again", seed, finished)
                    .isEmpty();
        }
        for (Invariants.Started started : runningAtTakeOver) {
            assertThat(restarts(cluster, started.vertex() + "/" + started.subtask() + "#" + started.attempt() + "@"
                    + started.tmId())).as("seed %d: %s ran at the take-over and ran again", seed, started).isEmpty();
        }
    }

    /** The batch job ends exact, and of the finished sources only those of {@code lostTm} ran again. */
    private static void assertOnlyTheLostWorkRunsAgain(SimCluster cluster, long seed, Set<String> durable,
            String lostTm) {
        assertThat(cluster.runUntil(() -> cluster.hasResult(BATCH_JOB), 120_000))
                .as("seed %d: the job ended\n%s", seed, cluster.trace().tail(40)).isTrue();
        assertBatchResult(cluster, seed);
        for (String finished : durable) {
            if (tmOf(finished).equals(lostTm)) {
                assertThat(restarts(cluster, finished)).as("seed %d: %s was on the killed %s", seed, finished,
                        lostTm).isNotEmpty();
            } else {
                assertThat(restarts(cluster, finished)).as("seed %d: %s ran again", seed, finished).isEmpty();
            }
        }
    }

    // ------------------------------------------------------------------ streaming

    @Test
    void aStreamingTaskManagerLostWhileNoLeaderIsUpRestoresTheLatestCheckpoint() throws Exception {
        for (long seed = 0; seed < 6; seed++) {
            SimCluster cluster = streamingCluster(seed, Map.of());
            try {
                SimJobManager first = awaitLeader(cluster);
                // Every TaskManager registered first: the job's two shared slots go to two of them,
                // so one keeps its tasks through the crash and the new leader hears of them.
                awaitTaskManagers(cluster, 3);
                cluster.submit(streamingJob());
                assertThat(cluster.runUntil(() -> cluster.invariants().completedCheckpoints(STREAMING_JOB) >= 2,
                        60_000)).as("seed %d: two checkpoints completed\n%s", seed, cluster.trace().tail(40)).isTrue();
                long latest = cluster.invariants().latestCompleted(STREAMING_JOB);
                int startsBefore = cluster.invariants().started().size();
                String lostTm = cluster.invariants().started().get(0).tmId();
                cluster.kill(first);
                cluster.kill(cluster.liveTaskManager(lostTm).orElseThrow());
                cluster.startTaskManager("tm-4");
                assertThat(cluster.runUntil(() -> cluster.hasResult(STREAMING_JOB), 120_000))
                        .as("seed %d: the job ended\n%s", seed, cluster.trace().tail(40)).isTrue();

                assertStreamingResult(cluster, seed);
                List<Invariants.Started> after = cluster.invariants().started()
                        .subList(startsBefore, cluster.invariants().started().size());
                assertThat(after).as("seed %d: every subtask runs again", seed).hasSizeGreaterThanOrEqualTo(4);
                assertThat(after.get(0).restoredCheckpointId()).as("seed %d: the restore after the take-over", seed)
                        .isGreaterThanOrEqualTo(latest);
                assertThat(after).as("seed %d: new attempts", seed).allMatch(s -> s.attempt() > 0);
            } finally {
                finish(cluster, "streaming-tm-lost-without-leader", seed);
            }
        }
    }

    @Test
    void aStreamingLeaderChangeAdoptsTheRunningTasks() throws Exception {
        for (long seed = 0; seed < 6; seed++) {
            SimCluster cluster = streamingCluster(seed, Map.of());
            try {
                SimJobManager first = awaitLeader(cluster);
                cluster.submit(streamingJob());
                assertThat(cluster.runUntil(() -> cluster.invariants().completedCheckpoints(STREAMING_JOB) >= 2,
                        60_000)).as("seed %d: two checkpoints completed\n%s", seed, cluster.trace().tail(40)).isTrue();
                int startsBefore = cluster.invariants().started().size();
                cluster.kill(first);
                assertThat(cluster.runUntil(() -> cluster.hasResult(STREAMING_JOB), 120_000))
                        .as("seed %d: the job ended\n%s", seed, cluster.trace().tail(40)).isTrue();

                assertStreamingResult(cluster, seed);
                assertThat(cluster.invariants().started().subList(startsBefore, cluster.invariants().started().size()))
                        .as("seed %d: tasks started after the leader was killed", seed).isEmpty();
            } finally {
                finish(cluster, "streaming-leader-change", seed);
            }
        }
    }

    /**
     * A new leader that cannot adopt every kept task (a TaskManager died while no leader was up)
     * cancels the kept tasks and deploys the restored attempts only once the TaskManagers'
     * heartbeats no longer list them: no subtask ever runs two attempts at once, not even for a
     * moment (a source with side effects outside Duraflow would otherwise run twice).
     */
    @Test
    void aTakeOverThatRestoresStartsNoAttemptWhileTheKeptOneStillRuns() throws Exception {
        for (long seed = 0; seed < 6; seed++) {
            SimCluster cluster = streamingCluster(seed, Map.of());
            cluster.invariants().strictSingleAttempt(true);
            try {
                SimJobManager first = awaitLeader(cluster);
                cluster.submit(streamingJob());
                assertThat(cluster.runUntil(() -> cluster.invariants().completedCheckpoints(STREAMING_JOB) >= 2,
                        60_000)).isTrue();
                String lostTm = cluster.invariants().started().get(0).tmId();
                cluster.kill(first);
                cluster.kill(cluster.liveTaskManager(lostTm).orElseThrow());
                cluster.startTaskManager("tm-4");
                assertThat(cluster.runUntil(() -> cluster.hasResult(STREAMING_JOB), 120_000)).isTrue();
            } finally {
                finish(cluster, "strict-single-attempt", seed);
            }
        }
    }

    /**
     * The leader freezes long enough to lose its session; the standby takes over and adopts the
     * running tasks; the old leader thaws, finds it was deposed and stands by. No task starts
     * again, the checkpoint ids go on upwards (an invariant) and the sums are exact.
     */
    @Test
    void aFrozenStreamingLeaderThatThawsAfterTheAdoptionDisturbsNothing() throws Exception {
        for (long seed = 0; seed < 4; seed++) {
            SimCluster cluster = streamingCluster(seed, Map.of());
            try {
                SimJobManager first = awaitLeader(cluster);
                cluster.submit(streamingJob());
                assertThat(cluster.runUntil(() -> cluster.invariants().completedCheckpoints(STREAMING_JOB) >= 2,
                        60_000)).as("seed %d: two checkpoints completed", seed).isTrue();
                int startsBefore = cluster.invariants().started().size();
                cluster.freeze(first);
                assertThat(cluster.runUntil(() -> cluster.leader() != null && cluster.leader() != first
                        && cluster.invariants().completedCheckpoints(STREAMING_JOB) >= 3, 60_000))
                        .as("seed %d: the standby leads and completes a checkpoint", seed).isTrue();
                cluster.thaw(first);
                assertThat(cluster.runUntil(() -> cluster.hasResult(STREAMING_JOB), 120_000))
                        .as("seed %d: the job ended\n%s", seed, cluster.trace().tail(40)).isTrue();

                assertStreamingResult(cluster, seed);
                assertThat(cluster.invariants().started().subList(startsBefore, cluster.invariants().started().size()))
                        .as("seed %d: tasks started after the leader froze", seed).isEmpty();
                assertThat(cluster.trace().lines()).as("seed %d: the thawed leader stood by", seed)
                        .anyMatch(line -> line.endsWith("jm-1: stands by (was s1)"));
            } finally {
                finish(cluster, "streaming-frozen-leader", seed);
            }
        }
    }

    // ------------------------------------------------------------------ random faults

    /** Faults per run. */
    private static final int FAULTS = 16;

    @Test
    void randomFaultsKeepTheInvariantsAndEveryJobEndsWithTheRightResult() throws Exception {
        for (long seed = 0; seed < 24; seed++) {
            SimCluster cluster = randomRun(seed, tempDir.resolve("random-" + seed));
            finish(cluster, "random-faults", seed);
        }
    }

    @Test
    void oneSeedGivesExactlyOneRun() throws Exception {
        for (long seed : new long[] {3, 11}) {
            Path first = tempDir.resolve("once-" + seed);
            Path second = tempDir.resolve("twice-" + seed);
            List<String> once = normalized(randomRun(seed, first), first);
            List<String> twice = normalized(randomRun(seed, second), second);
            assertThat(twice).as("seed %d: the trace of a second run", seed).isEqualTo(once);
            assertThat(once.stream().filter(line -> line.contains("FAULT"))).as("seed %d: faults", seed).isNotEmpty();
        }
    }

    private static List<String> normalized(SimCluster cluster, Path root) {
        cluster.close();
        String prefix = root.toString();
        return cluster.trace().lines().stream().map(line -> line.replace(prefix, "<root>")).toList();
    }

    /**
     * A run with both jobs and {@value #FAULTS} faults at seeded times: the leader killed (and
     * started again as a standby), frozen and thawed, a TaskManager killed and started again; even
     * seeds keep running tasks for a new leader (adoption), odd ones do not. Then everything is
     * healed, and both jobs must end with the right result.
     */
    private SimCluster randomRun(long seed, Path root) throws IOException {
        Files.createDirectories(root);
        Map<String, String> settings = new java.util.HashMap<>();
        settings.put("taskmanager.leader-loss.timeout", seed % 2 == 0 ? "60s" : "0");
        settings.put("execution.checkpointing.interval", "300ms");
        settings.put("execution.checkpointing.dir", root.resolve("checkpoints").toUri().toString());
        SimCluster cluster = new SimCluster(seed, root, settings);
        java.util.Random faults = new java.util.Random(seed * 7919 + 17);
        List<String> jobManagers = List.of("jm-1", "jm-2");
        List<String> taskManagers = List.of("tm-1", "tm-2", "tm-3", "tm-4");
        jobManagers.forEach(cluster::startJobManager);
        taskManagers.forEach(cluster::startTaskManager);
        awaitLeader(cluster);
        cluster.submit(batchJob());
        cluster.submit(streamingJob());
        // In the order they froze: a HashMap's order of JobManagers (identity hashes) differs between runs.
        Map<SimJobManager, Long> frozenUntil = new java.util.LinkedHashMap<>();
        for (int i = 0; i < FAULTS; i++) {
            cluster.runFor(100 + faults.nextInt(700));
            thawDue(cluster, frozenUntil, false);
            SimJobManager leader = cluster.leader();
            switch (faults.nextInt(4)) {
                case 0 -> {
                    if (leader != null && leader.process().alive()) {
                        cluster.kill(leader);
                        frozenUntil.remove(leader);
                        cluster.startJobManager(leader.name());
                    }
                }
                case 1 -> {
                    if (leader != null && leader.process().running()) {
                        cluster.freeze(leader);
                        frozenUntil.put(leader, cluster.scheduler().now() + 500 + faults.nextInt(4_000));
                    }
                }
                case 2 -> {
                    List<SimTaskManager> live = cluster.liveTaskManagers();
                    if (live.size() > 2) {
                        cluster.kill(live.get(faults.nextInt(live.size())));
                    }
                }
                default -> restartDeadTaskManagers(cluster, taskManagers);
            }
        }
        thawDue(cluster, frozenUntil, true);
        restartDeadTaskManagers(cluster, taskManagers);
        boolean ended = cluster.runUntil(() -> cluster.hasResult(BATCH_JOB) && cluster.hasResult(STREAMING_JOB),
                600_000);
        assertThat(ended).as("seed %d: both jobs ended\n%s", seed, cluster.trace().tail(60)).isTrue();
        assertBatchResult(cluster, seed);
        assertStreamingResult(cluster, seed);
        return cluster;
    }

    private static void thawDue(SimCluster cluster, Map<SimJobManager, Long> frozenUntil, boolean all) {
        for (var entry : List.copyOf(frozenUntil.entrySet())) {
            if (all || entry.getValue() <= cluster.scheduler().now()) {
                frozenUntil.remove(entry.getKey());
                if (entry.getKey().process().alive()) {
                    cluster.thaw(entry.getKey());
                }
            }
        }
    }

    private static void restartDeadTaskManagers(SimCluster cluster, List<String> names) {
        for (String name : names) {
            if (cluster.taskManagerAt(name + ".sim:6122") == null
                    || !cluster.taskManagerAt(name + ".sim:6122").process().alive()) {
                cluster.startTaskManager(name);
            }
        }
    }

    // ------------------------------------------------------------------ helpers

    private SimCluster streamingCluster(long seed, Map<String, String> settings) throws IOException {
        Map<String, String> all = new java.util.HashMap<>(settings);
        Path root = Files.createDirectories(tempDir.resolve("streaming-" + seed + "-" + settings.hashCode()));
        all.put("execution.checkpointing.interval", "300ms");
        all.put("execution.checkpointing.dir", root.resolve("checkpoints").toUri().toString());
        SimCluster cluster = new SimCluster(seed, root, all);
        cluster.startJobManager("jm-1");
        cluster.startJobManager("jm-2");
        for (int i = 1; i <= 3; i++) {
            cluster.startTaskManager("tm-" + i);
        }
        return cluster;
    }

    private static void finish(SimCluster cluster, String name, long seed) throws IOException {
        cluster.close();
        SimLog.LOG.info("{} seed {}: {} mails, {} calls, {} ms virtual", name, seed, cluster.scheduler().mailsRun(),
                cluster.network().calls(), cluster.scheduler().now());
        Files.createDirectories(Path.of("target", "simulation"));
        Files.write(Path.of("target", "simulation", name + "-" + seed + ".txt"), cluster.trace().lines());
    }

    private static Set<String> awaitDurableSources(SimCluster cluster, long seed) {
        Set<String> durable = new HashSet<>();
        long[] lastRead = {0};
        assertThat(cluster.runUntil(() -> cluster.scheduler().now() >= lastRead[0] + 20
                && (lastRead[0] = cluster.scheduler().now()) >= 0
                && finishedDurable(cluster, durable, true), 60_000))
                .as("seed %d: a source finished and is in the log", seed).isTrue();
        return durable;
    }

    private static String tmOf(String execution) {
        return execution.substring(execution.indexOf('@') + 1);
    }

    private SimCluster batchCluster(long seed, Map<String, String> settings) throws IOException {
        Path root = Files.createDirectories(tempDir.resolve("batch-" + seed + "-" + settings.hashCode()));
        SimCluster cluster = new SimCluster(seed, root, settings);
        cluster.startJobManager("jm-1");
        cluster.startJobManager("jm-2");
        for (int i = 1; i <= 3; i++) {
            cluster.startTaskManager("tm-" + i);
        }
        return cluster;
    }

    private static void awaitTaskManagers(SimCluster cluster, int count) {
        assertThat(cluster.runUntil(() -> cluster.leader() != null && cluster.leader().leadership() != null
                && cluster.leader().leadership().resourceManager.taskManagers().size() >= count, 10_000))
                .as("%d TaskManagers registered", count).isTrue();
    }

    private static SimJobManager awaitLeader(SimCluster cluster) {
        assertThat(cluster.runUntil(() -> cluster.leader() != null && cluster.leader().leadership() != null
                && cluster.leader().leadership().ready, 10_000)).as("a leader is ready").isTrue();
        return cluster.leader();
    }

    static SubmitJobRequest batchJob() {
        return SubmitJobRequest.newBuilder().setJobId(BATCH_JOB).setJobClass(WordCount.class.getName())
                .putParams("words", "1000").putParams("splits", Integer.toString(SPLITS)).setParallelism(2).build();
    }

    /**
     * Whether some subtask (a source if {@code sourcesOnly}) finished and the job event log on disk
     * holds its finish and, after the last split assignment, the enumerator's state: a recovery
     * then keeps every finished task whose TaskManager lives. {@code durable} gets
     * "vertex/subtask#attempt@tm" of each.
     */
    private static boolean finishedDurable(SimCluster cluster, Set<String> durable, boolean sourcesOnly) {
        if (cluster.invariants().started().stream().noneMatch(s -> s.vertex() == 0)) {
            return false;
        }
        Path log = cluster.eventLogDirectory(BATCH_JOB);
        if (!Files.isDirectory(log)) {
            return false;
        }
        List<JobEvent> events;
        try {
            events = JobEventReader.readAll(log).events();
        } catch (IOException e) {
            return false;
        }
        boolean stateAfterSplits = true;
        Set<String> finished = new HashSet<>();
        for (JobEvent event : events) {
            if (event.hasSplitsAssigned()) {
                stateAfterSplits = false;
            } else if (event.hasCoordinatorState()) {
                stateAfterSplits = true;
            } else if (event.hasExecutionFinished() && (!sourcesOnly || event.getExecutionFinished().getVertex() == 0)) {
                var f = event.getExecutionFinished();
                finished.add(f.getVertex() + "/" + f.getSubtask() + "#" + f.getAttempt() + "@" + f.getTmId());
            }
        }
        if (!stateAfterSplits || finished.isEmpty()) {
            return false;
        }
        durable.addAll(finished);
        return true;
    }

    /** Starts of the subtask of "vertex/subtask#attempt" with a higher attempt. */
    private static List<Invariants.Started> restarts(SimCluster cluster, String execution) {
        int vertex = Integer.parseInt(execution.substring(0, execution.indexOf('/')));
        int subtask = Integer.parseInt(execution.substring(execution.indexOf('/') + 1, execution.indexOf('#')));
        int attempt = Integer.parseInt(execution.substring(execution.indexOf('#') + 1, execution.indexOf('@')));
        return cluster.invariants().started().stream().filter(s -> s.jobId().equals(BATCH_JOB)
                && s.vertex() == vertex && s.subtask() == subtask && s.attempt() > attempt).toList();
    }

    /** The batch job FINISHED, and its consumers counted every split exactly once. */
    static void assertBatchResult(SimCluster cluster, long seed) {
        JobResultEntry result = cluster.result(BATCH_JOB).orElseThrow();
        assertThat(result.state()).as("seed %d: %s", seed, result.failure()).isEqualTo(JobOutcome.FINISHED);
        long counted = result.collected().stream().filter(c -> c.name().equals(SimBatchTask.RESULT))
                .mapToLong(c -> SimBatchTask.count(c.data())).sum();
        assertThat(counted).as("seed %d: records counted (one per split)", seed).isEqualTo(SPLITS);
    }

    /** The streaming job FINISHED, and its sums saw every record of every split exactly once. */
    static void assertStreamingResult(SimCluster cluster, long seed) {
        JobResultEntry result = cluster.result(STREAMING_JOB).orElseThrow();
        assertThat(result.state()).as("seed %d: %s", seed, result.failure()).isEqualTo(JobOutcome.FINISHED);
        long count = 0;
        long sum = 0;
        for (CollectedData data : result.collected()) {
            long[] parsed = SimStreamTask.parse(data.data());
            count += parsed[0];
            sum += parsed[1];
        }
        var splits = cluster.invariants().splits(STREAMING_JOB);
        long expectedSum = 0;
        for (var split : splits) {
            for (int i = 0; i < SimStreamTask.RECORDS_PER_SPLIT; i++) {
                expectedSum += SimStreamTask.value(split, i);
            }
        }
        assertThat(count).as("seed %d: records summed", seed).isEqualTo((long) splits.size()
                * SimStreamTask.RECORDS_PER_SPLIT);
        assertThat(sum).as("seed %d: sum", seed).isEqualTo(expectedSum);
    }

    static SubmitJobRequest streamingJob() {
        return SubmitJobRequest.newBuilder().setJobId(STREAMING_JOB).setJobClass(StreamingKeyedSum.class.getName())
                .putParams("records", "64").putParams("keys", "10").setParallelism(2)
                .putConfig("execution.runtime-mode", "streaming").build();
    }
}
