package io.duraflow.simulation;

import static io.duraflow.simulation.SimClusters.BATCH_JOB;
import static io.duraflow.simulation.SimClusters.STREAMING_JOB;
import static io.duraflow.simulation.SimClusters.assertBatchResult;
import static io.duraflow.simulation.SimClusters.assertStreamingResult;
import static io.duraflow.simulation.SimClusters.awaitLeader;
import static io.duraflow.simulation.SimClusters.batchJob;
import static io.duraflow.simulation.SimClusters.finish;
import static io.duraflow.simulation.SimClusters.streamingJob;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Properties of a whole simulated cluster ({@link SimCluster}): the real control plane of the
 * JobManagers and TaskManagers, simulated tasks, an in-memory network and ZooKeeper, one thread,
 * one seed per run. Each property runs over several seeds; the {@link Invariants} hold after
 * every step of every run. Here, both jobs at once under random faults (leaders killed and
 * frozen, TaskManagers killed): the invariants hold, both jobs end with the right result, and one
 * seed gives exactly one run.
 */
class ClusterSimulationRandomFaultsTest {
    /** Faults per run. */
    private static final int FAULTS = 16;

    @TempDir
    Path tempDir;

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
}
