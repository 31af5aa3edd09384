package io.duraflow.jobmanager.jobmaster;

import io.duraflow.jobmanager.jobmaster.execution.Execution;
import io.duraflow.jobmanager.jobmaster.execution.ExecutionState;

import static io.duraflow.jobmanager.jobmaster.JobMasterSchedulingTest.location;
import static io.duraflow.jobmanager.jobmaster.TestJobs.FINAL;
import static io.duraflow.jobmanager.jobmaster.TestJobs.REDUCE;
import static io.duraflow.jobmanager.jobmaster.TestJobs.SOURCE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.duraflow.api.connectors.RangeSplit;
import io.duraflow.jobmanager.resourcemanager.RecordingGateways.Deployment;
import io.duraflow.jobmanager.resourcemanager.RecordingGateways.Release;
import io.duraflow.rpc.proto.InputGate;
import io.duraflow.rpc.proto.PartitionLocation;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A TaskManager disappears: which tasks run again, and where. */
class JobMasterTaskManagerLossTest {
    private static final long DELAY = FakeCluster.SETTINGS.restartDelayMs();

    private static void lose(FakeCluster cluster, String tmId) {
        cluster.slots.removeTaskManager(tmId);
        cluster.job.onTaskManagerLost(tmId);
    }

    private static void assertState(FakeCluster cluster, int vertex, int subtask, int attempt, ExecutionState state) {
        Execution execution = cluster.execution(vertex, subtask);
        assertThat(execution.attempt()).as("attempt of %s", execution).isEqualTo(attempt);
        assertThat(execution.state()).as("state of %s", execution).isEqualTo(state);
    }

    @Test
    void runningTasksAndFinishedOutputStillNeededRunAgainOnAnotherTaskManager() {
        FakeCluster cluster = FakeCluster.started(TestJobs.wordCount(4), FakeSlotPool.of(2, 2));
        Deployment s0 = cluster.current(SOURCE, 0);
        Deployment s1 = cluster.current(SOURCE, 1);
        assertThat(s0.tmId()).isEqualTo("tm-1");
        assertThat(s1.tmId()).isEqualTo("tm-2");
        List<RangeSplit> s0Splits = cluster.readAllSplits(s0);
        cluster.finish(s0);
        cluster.slots.placeNextOn("tm-1", "tm-2");
        cluster.run(s1);
        Deployment r0 = cluster.current(REDUCE, 0);
        Deployment r1 = cluster.current(REDUCE, 1);
        assertThat(r0.tmId()).isEqualTo("tm-1");
        cluster.running(r0);
        cluster.running(r1);

        lose(cluster, "tm-1");

        assertState(cluster, REDUCE, 0, 1, ExecutionState.CREATED); // was running there
        assertState(cluster, SOURCE, 0, 1, ExecutionState.CREATED); // its output is still to be read
        assertState(cluster, SOURCE, 1, 0, ExecutionState.FINISHED);
        assertState(cluster, REDUCE, 1, 0, ExecutionState.RUNNING);
        assertThat(cluster.job.restarts()).as("one failover for the whole TaskManager").isEqualTo(1);

        cluster.scheduler.advance(DELAY);
        assertThat(cluster.live()).extracting(Deployment::vertex, Deployment::subtask, Deployment::tmId)
                .containsExactlyInAnyOrder(tuple(SOURCE, 0, "tm-2"),
                        tuple(REDUCE, 1, "tm-2"));
        Deployment s0Again = cluster.current(SOURCE, 0);
        assertThat(cluster.readAllSplits(s0Again)).as("splits of the lost source, read again")
                .containsExactlyElementsOf(s0Splits);
        cluster.finish(s0Again);

        Deployment r0Again = cluster.current(REDUCE, 0);
        assertThat(r0Again.tmId()).isEqualTo("tm-2");
        assertThat(r0Again.task().getInputs(0).getProducersList()).containsExactly(
                location(FakeCluster.outputPartition(s0Again), "tm-2"),
                location(FakeCluster.outputPartition(s1), "tm-2"));
        cluster.finish(r1);
        cluster.run(r0Again);
        assertThat(cluster.job.state()).isEqualTo(JobMasterState.FINISHED);
        assertThat(cluster.gateways.releases()).contains(new Release("tm-2", FakeCluster.JOB_ID, List.of()));
        assertThat(cluster.gateways.releases()).noneMatch(r -> r.tmId().equals("tm-1") && r.partitionIds().isEmpty());
    }

    @Test
    void finishedOutputWhoseConsumersAllFinishedIsNotProducedAgain() {
        FakeCluster cluster = FakeCluster.started(TestJobs.threeStages(), FakeSlotPool.of(2, 2));
        assertThat(cluster.current(SOURCE, 0).tmId()).isEqualTo("tm-1");
        cluster.run(cluster.current(SOURCE, 0));
        cluster.slots.placeNextOn("tm-2", "tm-2");
        cluster.run(cluster.current(SOURCE, 1));
        assertThat(cluster.live(REDUCE)).extracting(Deployment::tmId).containsExactly("tm-2", "tm-2");
        cluster.run(cluster.current(REDUCE, 0));
        cluster.slots.placeNextOn("tm-1", "tm-2");
        cluster.run(cluster.current(REDUCE, 1));
        assertThat(cluster.live(FINAL)).extracting(Deployment::tmId).containsExactly("tm-1", "tm-2");
        cluster.live(FINAL).forEach(cluster::running);

        lose(cluster, "tm-1");

        assertState(cluster, SOURCE, 0, 0, ExecutionState.FINISHED); // on tm-1, but read by all its consumers
        assertState(cluster, FINAL, 0, 1, ExecutionState.CREATED);
        assertState(cluster, FINAL, 1, 0, ExecutionState.RUNNING);
        assertThat(cluster.job.restarts()).isEqualTo(1);

        cluster.scheduler.advance(DELAY);
        Deployment f0Again = cluster.current(FINAL, 0);
        assertThat(f0Again.tmId()).isEqualTo("tm-2");
        assertThat(f0Again.task().getInputs(0).getProducersList()).extracting(PartitionLocation::getTmId)
                .containsExactly("tm-2", "tm-2");
        cluster.runLive(FINAL);
        assertThat(cluster.job.state()).isEqualTo(JobMasterState.FINISHED);
        assertThat(cluster.deploymentsOf(SOURCE)).hasSize(2);
        assertThat(cluster.deploymentsOf(REDUCE)).hasSize(2);
    }

    @Test
    void losingATaskManagerWithNothingOfTheJobChangesNothing() {
        FakeCluster cluster = FakeCluster.started(TestJobs.wordCount(4), FakeSlotPool.of(3, 2));
        assertThat(cluster.live()).extracting(Deployment::tmId).containsExactly("tm-1", "tm-2");

        lose(cluster, "tm-3");

        assertThat(cluster.job.restarts()).isZero();
        assertThat(cluster.live()).hasSize(2);
        assertThat(cluster.scheduler.pending()).as("restart timers").isZero();
        assertThat(cluster.gateways.deployments()).hasSize(2);
    }

    @Test
    void producersOnTheLostTaskManagerOfATaskThatRunsAgainRunAgainToo() {
        FakeCluster cluster = FakeCluster.started(TestJobs.threeStages(), FakeSlotPool.of(2, 2));
        cluster.run(cluster.current(SOURCE, 0)); // tm-1
        cluster.slots.placeNextOn("tm-1", "tm-2");
        cluster.run(cluster.current(SOURCE, 1)); // tm-2
        assertThat(cluster.live(REDUCE)).extracting(Deployment::tmId).containsExactly("tm-1", "tm-2");
        cluster.run(cluster.current(REDUCE, 0));
        cluster.slots.placeNextOn("tm-2");
        cluster.run(cluster.current(REDUCE, 1), 0, 0, 0, 0, 0, 0, 0, 0);
        Deployment last = cluster.current(FINAL, 0);
        assertThat(last.tmId()).isEqualTo("tm-2");
        cluster.running(last);

        int deployedBefore = cluster.gateways.deployments().size();
        lose(cluster, "tm-1");
        cluster.scheduler.advance(DELAY);

        List<Deployment> all = cluster.gateways.deployments();
        for (Deployment d : all.subList(deployedBefore, all.size())) {
            for (InputGate gate : d.task().getInputsList()) {
                assertThat(gate.getProducersList()).as("inputs of %s, deployed after the loss",
                        FakeCluster.describe(d.attempt()))
                        .noneMatch(p -> p.getTmId().equals("tm-1"));
            }
        }
        assertThat(cluster.execution(SOURCE, 0).attempt()).as("attempt of source 0, whose output was on tm-1")
                .isEqualTo(1);
        assertThat(cluster.live()).extracting(Deployment::vertex, Deployment::subtask)
                .containsExactlyInAnyOrder(tuple(SOURCE, 0), tuple(FINAL, 0));
        assertThat(cluster.job.restarts()).isEqualTo(1);
    }
}
