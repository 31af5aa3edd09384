package io.duraflow.simulation;

import static io.duraflow.simulation.SimClusters.BATCH_JOB;
import static io.duraflow.simulation.SimClusters.assertBatchResult;
import static io.duraflow.simulation.SimClusters.awaitLeader;
import static io.duraflow.simulation.SimClusters.batchCluster;
import static io.duraflow.simulation.SimClusters.batchJob;
import static io.duraflow.simulation.SimClusters.finish;
import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.jobmanager.events.JobEventReader;
import io.duraflow.jobmanager.events.proto.JobEvent;
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
 * every step of every run. Here, batch jobs: leader changes (killed, frozen, killed several
 * times) keep the finished work, and a lost TaskManager costs only its own work.
 */
class ClusterSimulationBatchTest {
    @TempDir
    Path tempDir;

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
            SimCluster cluster = batchCluster(tempDir, seed,
                    Map.of("taskmanager.leader-loss.timeout", adoption ? "60s" : "0"));
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
            SimCluster cluster = batchCluster(tempDir, seed, Map.of("taskmanager.leader-loss.timeout", "60s"));
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
            SimCluster cluster = batchCluster(tempDir, seed,
                    Map.of("taskmanager.leader-loss.timeout", adoption ? "60s" : "0"));
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
            SimCluster cluster = batchCluster(tempDir, seed,
                    Map.of("taskmanager.leader-loss.timeout", adoption ? "60s" : "0"));
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
            SimCluster cluster = batchCluster(tempDir, seed, Map.of());
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
            SimCluster cluster = batchCluster(tempDir, seed, Map.of());
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
            } else if (event.hasExecutionFinished()
                    && (!sourcesOnly || event.getExecutionFinished().getVertex() == 0)) {
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
}
