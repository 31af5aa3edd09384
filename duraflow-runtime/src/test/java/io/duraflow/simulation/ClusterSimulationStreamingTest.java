package io.duraflow.simulation;

import static io.duraflow.simulation.SimClusters.STREAMING_JOB;
import static io.duraflow.simulation.SimClusters.assertStreamingResult;
import static io.duraflow.simulation.SimClusters.awaitLeader;
import static io.duraflow.simulation.SimClusters.awaitTaskManagers;
import static io.duraflow.simulation.SimClusters.finish;
import static io.duraflow.simulation.SimClusters.streamingCluster;
import static io.duraflow.simulation.SimClusters.streamingJob;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Properties of a whole simulated cluster ({@link SimCluster}): the real control plane of the
 * JobManagers and TaskManagers, simulated tasks, an in-memory network and ZooKeeper, one thread,
 * one seed per run. Each property runs over several seeds; the {@link Invariants} hold after
 * every step of every run. Here, streaming jobs: a leader change adopts the running tasks, a
 * take-over that restores never runs two attempts of a subtask at once, and a TaskManager lost while
 * no leader is up costs a restore of the latest checkpoint.
 */
class ClusterSimulationStreamingTest {
    @TempDir
    Path tempDir;

    @Test
    void aStreamingTaskManagerLostWhileNoLeaderIsUpRestoresTheLatestCheckpoint() throws Exception {
        for (long seed = 0; seed < 6; seed++) {
            SimCluster cluster = streamingCluster(tempDir, seed, Map.of());
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
            SimCluster cluster = streamingCluster(tempDir, seed, Map.of());
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
            SimCluster cluster = streamingCluster(tempDir, seed, Map.of());
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
            SimCluster cluster = streamingCluster(tempDir, seed, Map.of());
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
}
