package io.duraflow.jobmanager.jobmaster;

import io.duraflow.jobmanager.jobmaster.execution.Execution;
import io.duraflow.jobmanager.jobmaster.execution.ExecutionState;

import static io.duraflow.jobmanager.jobmaster.TestJobs.SOURCE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.duraflow.api.connectors.RangeSplit;
import io.duraflow.jobmanager.resourcemanager.RecordingGateways.Deployment;
import io.duraflow.jobmanager.resourcemanager.RecordingGateways.Release;
import io.duraflow.plan.ExchangeEdge;
import io.duraflow.plan.JobGraph;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.InputGate;
import io.duraflow.rpc.proto.OutputSpec;
import io.duraflow.rpc.proto.PartitionLocation;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The source coordinator through the job master: splits of an attempt that is replaced go back
 * to the enumerator, so the finished attempts read every split exactly once.
 */
public class JobMasterSourceSplitsTest {
    private static final long DELAY = FakeCluster.SETTINGS.restartDelayMs();
    public static final List<RangeSplit> FOUR_SPLITS = List.of(new RangeSplit(0, 250), new RangeSplit(250, 500),
            new RangeSplit(500, 750), new RangeSplit(750, 1_000));

    @Test
    void splitsOfAFailedSubtaskAreHandedOutAgain() {
        FakeCluster cluster = FakeCluster.started(TestJobs.sourceOnly(2, 4), FakeSlotPool.of(2, 2));
        Deployment s0 = cluster.current(SOURCE, 0);
        Deployment s1 = cluster.current(SOURCE, 1);
        RangeSplit first = cluster.requestSplit(s0).orElseThrow();
        RangeSplit second = cluster.requestSplit(s1).orElseThrow();
        RangeSplit third = cluster.requestSplit(s0).orElseThrow();

        cluster.fail(s0, "reader crashed");
        cluster.scheduler.advance(DELAY);

        Deployment s0Again = cluster.current(SOURCE, 0);
        assertThat(cluster.readAllSplits(s0Again)).as("the new attempt reads what the failed one had first")
                .startsWith(first, third);
        assertThat(cluster.readAllSplits(s1)).isEmpty();
        cluster.finish(s0Again);
        cluster.finish(s1);

        assertThat(cluster.job.state()).isEqualTo(JobMasterState.FINISHED);
        assertThat(cluster.splitsSentTo(s1.attempt())).containsExactly(second);
        assertThat(cluster.splitsReadByFinishedAttempts(SOURCE)).containsExactlyElementsOf(FOUR_SPLITS);
    }

    @Test
    void splitsOfAFailedSubtaskMayGoToAnotherSubtaskThatAsksFirst() {
        FakeCluster cluster = FakeCluster.started(TestJobs.sourceOnly(2, 4), FakeSlotPool.of(2, 2));
        Deployment s0 = cluster.current(SOURCE, 0);
        Deployment s1 = cluster.current(SOURCE, 1);
        cluster.requestSplit(s0).orElseThrow();
        cluster.requestSplit(s0).orElseThrow();
        cluster.fail(s0, "reader crashed");

        assertThat(cluster.readAllSplits(s1)).hasSize(4);
        cluster.finish(s1);
        cluster.scheduler.advance(DELAY);
        Deployment s0Again = cluster.current(SOURCE, 0);
        assertThat(cluster.readAllSplits(s0Again)).isEmpty();
        cluster.finish(s0Again);

        assertThat(cluster.job.state()).isEqualTo(JobMasterState.FINISHED);
        assertThat(cluster.splitsReadByFinishedAttempts(SOURCE)).containsExactlyElementsOf(FOUR_SPLITS);
    }

    /**
     * Random runs of the three-stage job on 3 TaskManagers with 2 slots each. At each step one
     * live task makes progress (reports running, asks for a split, finishes), fails, or its
     * TaskManager dies and comes back empty. The driver plays real TaskManagers: a task whose
     * input partition is gone fails with missing_partition_id instead of finishing.
     *
     * <p>Checked: every deployment reads the current, finished output of all its producers; the
     * job finishes; the finished source attempts read every split exactly once.
     */
    @Test
    void randomFailuresNeverLoseOrDuplicateASplit() {
        for (int seed = 0; seed < 200; seed++) {
            new Simulation(seed, TestJobs.threeStages(), false).run();
        }
    }

    /**
     * The same with a push-style enumerator (as Kafka's): it assigns every split at start, before
     * any reader runs, and pushes splits given back straight to the same subtask. A source reader
     * only reads what is pushed to it and finishes once told there are no more.
     */
    @Test
    void randomFailuresNeverLoseOrDuplicateAPushedSplit() {
        for (int seed = 0; seed < 200; seed++) {
            new Simulation(seed, TestSources.threeStages(TestSources.Behaviour.PUSH), true).run();
        }
    }

    private static final class Simulation {
        private final long seed;
        private final Random random;
        private final boolean push;
        private final FakeCluster cluster;
        /** Partitions that exist on the TaskManagers: id -> TaskManager. */
        private final Map<String, String> partitions = new HashMap<>();
        private final Set<AttemptId> noMoreSplits = new HashSet<>();
        private int releasesSeen;
        private int deploymentsSeen;

        Simulation(long seed, JobGraph graph, boolean push) {
            this.seed = seed;
            this.random = new Random(seed);
            this.push = push;
            this.cluster = FakeCluster.started(graph, FakeCluster.withRestarts(10_000), FakeSlotPool.of(3, 2));
        }

        void run() {
            checkNewDeployments();
            for (int step = 0; !cluster.job.isTerminal(); step++) {
                if (step > 20_000) {
                    fail("seed %d: job did not end: %s", seed, cluster.job.status());
                }
                List<Deployment> live = cluster.live();
                if (live.isEmpty()) {
                    cluster.scheduler.advance(DELAY);
                } else {
                    act(live.get(random.nextInt(live.size())));
                }
                forgetReleasedPartitions();
                checkNewDeployments();
            }
            assertThat(cluster.job.state()).as("seed %d: %s", seed, cluster.job.status().getFailure())
                    .isEqualTo(JobMasterState.FINISHED);
            assertThat(cluster.splitsReadByFinishedAttempts(SOURCE)).as("seed %d: splits read", seed)
                    .containsExactlyElementsOf(FOUR_SPLITS);
        }

        private void act(Deployment d) {
            int dice = random.nextInt(100);
            if (dice < 6) {
                cluster.fail(d, "random failure");
            } else if (dice < 9) {
                restartTaskManager(d.tmId());
            } else if (cluster.execution(d.vertex(), d.subtask()).state() == ExecutionState.DEPLOYING) {
                cluster.running(d);
            } else if (cluster.graph.vertex(d.vertex()).isSource() && push) {
                // A pushed reader has nothing to ask for: it waits until it is told there are no more.
                if (cluster.gateways.eventsTo(d.attempt()).stream().anyMatch(e -> e.event().hasNoMoreSplits())) {
                    finishOrMissInput(d);
                }
            } else if (cluster.graph.vertex(d.vertex()).isSource() && !noMoreSplits.contains(d.attempt())) {
                if (cluster.requestSplit(d).isEmpty()) {
                    noMoreSplits.add(d.attempt());
                }
            } else {
                finishOrMissInput(d);
            }
        }

        private void restartTaskManager(String tmId) {
            cluster.slots.removeTaskManager(tmId);
            partitions.values().removeIf(tmId::equals);
            cluster.job.onTaskManagerLost(tmId);
            cluster.slots.addTaskManager(tmId, 2);
            cluster.job.schedule(); // what the dispatcher does when a TaskManager registers
        }

        private void finishOrMissInput(Deployment d) {
            for (InputGate gate : d.task().getInputsList()) {
                for (PartitionLocation producer : gate.getProducersList()) {
                    if (!producer.getTmId().equals(partitions.get(producer.getPartitionId()))) {
                        cluster.failMissingPartition(d, producer.getPartitionId());
                        return;
                    }
                }
            }
            long[] bytes = new long[cluster.settings.keyGroups()];
            for (int i = 0; i < bytes.length; i++) {
                bytes[i] = random.nextInt(40);
            }
            for (OutputSpec output : d.task().getOutputsList()) {
                partitions.put(output.getPartitionId(), d.tmId());
            }
            cluster.finish(d, bytes);
        }

        private void forgetReleasedPartitions() {
            List<Release> releases = cluster.gateways.releases();
            for (Release release : releases.subList(releasesSeen, releases.size())) {
                if (release.partitionIds().isEmpty()) {
                    partitions.values().removeIf(release.tmId()::equals);
                } else {
                    release.partitionIds().forEach(id -> partitions.remove(id, release.tmId()));
                }
            }
            releasesSeen = releases.size();
        }

        /** A new deployment reads the partitions of the current, finished attempt of each producer. */
        private void checkNewDeployments() {
            List<Deployment> deployments = cluster.gateways.deployments();
            for (Deployment d : deployments.subList(deploymentsSeen, deployments.size())) {
                for (InputGate gate : d.task().getInputsList()) {
                    ExchangeEdge edge = cluster.graph.edge(gate.getEdgeId());
                    List<PartitionLocation> expected = new ArrayList<>();
                    for (Execution producer : cluster.job.executions(edge.producer())) {
                        assertThat(producer.state()).as("seed %d: %s deployed while %s is not finished", seed,
                                FakeCluster.describe(d.attempt()), producer).isEqualTo(ExecutionState.FINISHED);
                        expected.add(JobMasterSchedulingTest.location(producer.partitionId(edge.id()),
                                producer.tmId()));
                    }
                    assertThat(gate.getProducersList())
                            .as("seed %d: inputs of %s", seed, FakeCluster.describe(d.attempt()))
                            .containsExactlyElementsOf(expected);
                }
            }
            deploymentsSeen = deployments.size();
        }
    }
}
