package io.duraflow.jobmanager.jobmaster;

import io.duraflow.jobmanager.jobmaster.execution.Execution;
import io.duraflow.jobmanager.jobmaster.execution.ExecutionState;

import static io.duraflow.jobmanager.jobmaster.JobMasterSchedulingTest.location;
import static io.duraflow.jobmanager.jobmaster.TestJobs.REDUCE;
import static io.duraflow.jobmanager.jobmaster.TestJobs.SOURCE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.duraflow.jobmanager.resourcemanager.RecordingGateways.Cancel;
import io.duraflow.jobmanager.resourcemanager.RecordingGateways.Deployment;
import io.duraflow.jobmanager.resourcemanager.RecordingGateways.Release;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.OperatorEvent;
import io.duraflow.rpc.proto.RequestSplit;
import io.duraflow.rpc.proto.TaskState;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Failed tasks, lost partitions and late messages: what runs again, when, and what does not. */
class JobMasterFailoverTest {
    private static final long DELAY = FakeCluster.SETTINGS.restartDelayMs();

    /** WordCount with both sources finished (10 bytes per subpartition each: 2 reduce tasks), reduces running. */
    private static FakeCluster reducesRunning() {
        FakeCluster cluster = FakeCluster.started(TestJobs.wordCount(4), FakeSlotPool.of(2, 2));
        cluster.runLive(SOURCE);
        assertThat(cluster.job.executions(REDUCE)).hasSize(2);
        cluster.live(REDUCE).forEach(cluster::running);
        return cluster;
    }

    @Test
    void aFailedTaskAloneRunsAgainAsTheNextAttemptAfterTheRestartDelay() {
        FakeCluster cluster = reducesRunning();
        Deployment r0 = cluster.current(REDUCE, 0);
        Deployment r1 = cluster.current(REDUCE, 1);
        cluster.finish(r0);
        cluster.scheduler.advance(500);

        cluster.fail(r1, "boom");

        Execution failed = cluster.execution(REDUCE, 1);
        assertThat(failed.attempt()).isEqualTo(1);
        assertThat(failed.state()).isEqualTo(ExecutionState.CREATED);
        assertThat(failed.notBeforeMs()).isEqualTo(500 + DELAY);
        assertThat(cluster.job.restarts()).isEqualTo(1);
        assertThat(cluster.job.state()).isEqualTo(JobMasterState.RUNNING);
        assertThat(cluster.slots.usedTotal()).isZero();

        cluster.scheduler.advance(DELAY - 1);
        assertThat(cluster.deploymentsOf(REDUCE, 1)).as("deployed before the restart delay passed").hasSize(1);

        cluster.scheduler.advance(1);
        List<Deployment> attempts = cluster.deploymentsOf(REDUCE, 1);
        assertThat(attempts).extracting(Deployment::attemptNumber).containsExactly(0, 1);
        assertThat(attempts.get(1).task().getInputsList()).as("same producers and range as before")
                .isEqualTo(r1.task().getInputsList());
        assertThat(cluster.deploymentsOf(SOURCE)).as("sources run again").hasSize(2);
        for (int[] task : new int[][] {{SOURCE, 0}, {SOURCE, 1}, {REDUCE, 0}}) {
            assertThat(cluster.execution(task[0], task[1]))
                    .satisfies(e -> assertThat(e.attempt()).isZero())
                    .satisfies(e -> assertThat(e.state()).isEqualTo(ExecutionState.FINISHED));
        }

        cluster.run(attempts.get(1));
        assertThat(cluster.job.state()).isEqualTo(JobMasterState.FINISHED);
        assertThat(cluster.job.status().getRestarts()).isEqualTo(1);
        assertThat(cluster.gateways.releases()).as("only the final release of everything")
                .allSatisfy(release -> assertThat(release.partitionIds()).isEmpty());
    }

    @Test
    void afterMaxRestartsTheNextFailureFailsTheJobAndCancelsTheRest() {
        FakeCluster cluster = FakeCluster.started(TestJobs.wordCount(4), FakeCluster.withRestarts(2),
                FakeSlotPool.of(2, 2));
        Deployment s1 = cluster.current(SOURCE, 1);
        cluster.running(s1);

        for (int failure = 1; failure <= 2; failure++) {
            cluster.fail(cluster.current(SOURCE, 0), "disk full #" + failure);
            assertThat(cluster.job.restarts()).isEqualTo(failure);
            assertThat(cluster.job.state()).isEqualTo(JobMasterState.RUNNING);
            cluster.scheduler.advance(DELAY);
            assertThat(cluster.current(SOURCE, 0).attemptNumber()).isEqualTo(failure);
        }
        Deployment last = cluster.current(SOURCE, 0);
        cluster.fail(last, "disk full #3");

        assertThat(cluster.job.state()).isEqualTo(JobMasterState.FAILED);
        assertThat(cluster.terminations).containsExactly(JobMasterState.FAILED);
        assertThat(cluster.job.restarts()).isEqualTo(2);
        assertThat(cluster.job.status().getFailure()).contains("disk full #3").contains("no restarts left");
        assertThat(cluster.execution(SOURCE, 0).attempt()).as("the last attempt is not replaced").isEqualTo(2);
        assertThat(cluster.gateways.cancels()).containsExactly(new Cancel(s1.tmId(), s1.attempt()));
        assertThat(cluster.gateways.releases()).extracting(Release::tmId).containsExactlyInAnyOrder("tm-1", "tm-2");

        int deployments = cluster.gateways.deployments().size();
        cluster.scheduler.advance(10 * DELAY);
        cluster.job.schedule();
        assertThat(cluster.gateways.deployments()).as("deployments after the job failed").hasSize(deployments);
    }

    @Test
    void withoutRestartsTheFirstFailureFailsTheJob() {
        FakeCluster cluster = FakeCluster.started(TestJobs.sourceOnly(1, 1), FakeCluster.withRestarts(0),
                FakeSlotPool.of(1, 1));
        cluster.fail(cluster.current(SOURCE, 0), "bad input");

        assertThat(cluster.job.state()).isEqualTo(JobMasterState.FAILED);
        assertThat(cluster.job.restarts()).isZero();
        assertThat(cluster.job.status().getFailure()).contains("bad input").contains("no restarts left");
    }

    @Test
    void aLateConfirmationAfterTheJobFailedDoesNotFreeItsSlotAgain() {
        FakeCluster cluster = FakeCluster.started(TestJobs.sourceOnly(2, 2), FakeCluster.withRestarts(0),
                FakeSlotPool.of(1, 2));
        Deployment s1 = cluster.current(SOURCE, 1);
        cluster.running(s1);
        cluster.fail(cluster.current(SOURCE, 0), "boom");
        assertThat(cluster.job.state()).isEqualTo(JobMasterState.FAILED);
        assertThat(cluster.slots.usedTotal()).isZero();

        // Another job takes the slot s1 had; then s1's TaskManager confirms the cancellation.
        assertThat(cluster.slots.allocate()).isNotNull();
        cluster.canceled(s1);

        assertThat(cluster.slots.used("tm-1")).as("slots in use on tm-1 (the other job's)").isEqualTo(1);
        assertThat(cluster.slots.invalidFrees()).isEmpty();
    }

    @Test
    void aRefusedDeploymentCountsAsAFailureOfThatTask() {
        FakeCluster cluster = new FakeCluster(TestJobs.wordCount(4), FakeCluster.SETTINGS, FakeSlotPool.of(2, 2));
        cluster.gateways.refuseNextDeploy("connection refused");
        cluster.start();
        assertThat(cluster.gateways.refused()).extracting(Deployment::subtask).containsExactly(0);
        assertThat(cluster.deploymentsOf(SOURCE)).extracting(Deployment::subtask).containsExactly(1);

        cluster.scheduler.runDue();

        assertThat(cluster.execution(SOURCE, 0).attempt()).isEqualTo(1);
        assertThat(cluster.job.restarts()).isEqualTo(1);
        assertThat(cluster.slots.usedTotal()).as("the refused task's slot is free again").isEqualTo(1);
        cluster.scheduler.advance(DELAY);
        assertThat(cluster.current(SOURCE, 0).attemptNumber()).isEqualTo(1);
        assertThat(cluster.readAllSplits(cluster.current(SOURCE, 0))).isNotEmpty();
    }

    @Test
    void aTaskItsTaskManagerCancelledOnItsOwnCountsAsFailed() {
        FakeCluster cluster = FakeCluster.started(TestJobs.sourceOnly(1, 1), FakeSlotPool.of(1, 1));
        Deployment s0 = cluster.current(SOURCE, 0);
        cluster.running(s0);

        cluster.canceled(s0);

        assertThat(cluster.job.state()).isEqualTo(JobMasterState.RUNNING);
        assertThat(cluster.job.restarts()).isEqualTo(1);
        assertThat(cluster.execution(SOURCE, 0).attempt()).isEqualTo(1);
        assertThat(cluster.slots.usedTotal()).isZero();
        assertThat(cluster.slots.invalidFrees()).isEmpty();
        cluster.scheduler.advance(DELAY);
        cluster.run(cluster.current(SOURCE, 0));
        assertThat(cluster.job.state()).isEqualTo(JobMasterState.FINISHED);
    }

    @Test
    void aDeploymentErrorReportedAfterTheTaskFinishedIsIgnored() {
        FakeCluster cluster = new FakeCluster(TestJobs.sourceOnly(2, 2), FakeCluster.SETTINGS, FakeSlotPool.of(1, 2));
        cluster.gateways.failNextDeployAfterDelivery("deadline exceeded");
        cluster.start();
        cluster.run(cluster.current(SOURCE, 0));

        cluster.scheduler.runDue();

        assertThat(cluster.execution(SOURCE, 0).state()).isEqualTo(ExecutionState.FINISHED);
        assertThat(cluster.execution(SOURCE, 0).attempt()).isZero();
        assertThat(cluster.job.restarts()).isZero();
        cluster.run(cluster.current(SOURCE, 1));
        assertThat(cluster.job.state()).isEqualTo(JobMasterState.FINISHED);
    }

    @Test
    void aLostInputPartitionRunsItsProducerAgainBeforeTheConsumer() {
        FakeCluster cluster = reducesRunning();
        Deployment s0 = cluster.current(SOURCE, 0);
        Deployment s1 = cluster.current(SOURCE, 1);
        Deployment r0 = cluster.current(REDUCE, 0);
        Deployment r1 = cluster.current(REDUCE, 1);
        String lost = FakeCluster.outputPartition(s1);

        cluster.failMissingPartition(r0, lost);

        assertThat(cluster.execution(SOURCE, 1).attempt()).isEqualTo(1);
        assertThat(cluster.execution(REDUCE, 0).attempt()).isEqualTo(1);
        assertThat(cluster.execution(SOURCE, 0).attempt()).isZero();
        assertThat(cluster.execution(SOURCE, 0).state()).isEqualTo(ExecutionState.FINISHED);
        assertThat(cluster.execution(REDUCE, 1).attempt()).isZero();
        assertThat(cluster.execution(REDUCE, 1).state()).isEqualTo(ExecutionState.RUNNING);
        assertThat(cluster.job.restarts()).isEqualTo(1);
        assertThat(cluster.gateways.releases()).containsExactly(new Release(s1.tmId(), FakeCluster.JOB_ID,
                List.of(lost)));

        int before = cluster.gateways.deployments().size();
        cluster.scheduler.advance(DELAY);
        List<Deployment> rerun = cluster.gateways.deployments().subList(before, cluster.gateways.deployments().size());
        assertThat(rerun).as("the producer first, alone").extracting(Deployment::vertex, Deployment::subtask,
                Deployment::attemptNumber).containsExactly(tuple(SOURCE, 1, 1));

        Deployment s1Again = rerun.get(0);
        cluster.run(s1Again);
        Deployment r0Again = cluster.current(REDUCE, 0);
        assertThat(r0Again.attemptNumber()).isEqualTo(1);
        assertThat(r0Again.task().getInputs(0).getProducersList()).containsExactly(
                location(FakeCluster.outputPartition(s0), s0.tmId()),
                location(FakeCluster.outputPartition(s1Again), s1Again.tmId()));
        assertThat(FakeCluster.outputPartition(s1Again)).isNotEqualTo(lost);

        cluster.run(r0Again);
        cluster.finish(r1);
        assertThat(cluster.job.state()).isEqualTo(JobMasterState.FINISHED);
        assertThat(cluster.deploymentsOf(SOURCE, 0)).as("the other source never ran again").hasSize(1);
    }

    @Test
    void aLostPartitionOfAnAttemptThatWasAlreadyReplacedDoesNotRunItsProducerAgain() {
        FakeCluster cluster = reducesRunning();
        Deployment s1 = cluster.current(SOURCE, 1);
        String lost = FakeCluster.outputPartition(s1);
        cluster.failMissingPartition(cluster.current(REDUCE, 0), lost);
        cluster.scheduler.advance(DELAY);
        cluster.run(cluster.current(SOURCE, 1));
        assertThat(cluster.execution(SOURCE, 1).state()).isEqualTo(ExecutionState.FINISHED);
        int releases = cluster.gateways.releases().size();

        // The other reduce task, still on attempt 0, now reports the old partition missing too.
        cluster.failMissingPartition(cluster.current(REDUCE, 1), lost);

        assertThat(cluster.execution(REDUCE, 1).attempt()).isEqualTo(1);
        assertThat(cluster.execution(SOURCE, 1).attempt()).as("the replacement producer stays").isEqualTo(1);
        assertThat(cluster.execution(SOURCE, 1).state()).isEqualTo(ExecutionState.FINISHED);
        assertThat(cluster.gateways.releases()).hasSize(releases);
        assertThat(cluster.job.restarts()).as("part of the failover already counted for the lost partition")
                .isEqualTo(1);

        cluster.scheduler.advance(DELAY);
        cluster.runLive(REDUCE);
        assertThat(cluster.job.state()).isEqualTo(JobMasterState.FINISHED);
        assertThat(cluster.deploymentsOf(SOURCE)).hasSize(3);
    }

    @Test
    void updatesAndEventsOfASupersededAttemptAreIgnored() {
        FakeCluster cluster = FakeCluster.started(TestJobs.wordCount(4), FakeSlotPool.of(2, 2));
        Deployment old = cluster.current(SOURCE, 0);
        cluster.running(old);
        cluster.fail(old, "boom");
        assertThat(cluster.execution(SOURCE, 0).attempt()).isEqualTo(1);

        cluster.running(old);
        cluster.finish(old);
        cluster.fail(old, "boom again");
        cluster.canceled(old);
        cluster.job.onOperatorEvent(old.attempt(), cluster.graph.vertex(SOURCE).head().id(),
                OperatorEvent.newBuilder().setRequestSplit(RequestSplit.getDefaultInstance()).build());

        assertThat(cluster.execution(SOURCE, 0).state()).isEqualTo(ExecutionState.CREATED);
        assertThat(cluster.job.restarts()).isEqualTo(1);
        assertThat(cluster.gateways.eventsTo(old.attempt())).as("splits handed to a dead attempt").isEmpty();
        assertThat(cluster.slots.usedTotal()).as("only the other source holds a slot").isEqualTo(1);
        assertThat(cluster.slots.invalidFrees()).isEmpty();

        cluster.scheduler.advance(DELAY);
        Deployment current = cluster.current(SOURCE, 0);
        cluster.fail(old, "boom, late");
        cluster.finish(old);
        assertThat(cluster.execution(SOURCE, 0).state()).isEqualTo(ExecutionState.DEPLOYING);
        assertThat(cluster.job.restarts()).isEqualTo(1);

        // Attempts of tasks that do not exist (yet) are ignored too.
        cluster.send(FakeCluster.update(old, TaskState.FINISHED).setAttempt(AttemptId.newBuilder()
                .setJobId(FakeCluster.JOB_ID).setVertex(REDUCE).setSubtask(0).setAttempt(0)));
        cluster.send(FakeCluster.update(old, TaskState.FAILED).setAttempt(AttemptId.newBuilder()
                .setJobId(FakeCluster.JOB_ID).setVertex(7).setSubtask(0).setAttempt(0)));
        cluster.send(FakeCluster.update(old, TaskState.FAILED).setAttempt(AttemptId.newBuilder()
                .setJobId(FakeCluster.JOB_ID).setVertex(SOURCE).setSubtask(5).setAttempt(0)));
        assertThat(cluster.job.restarts()).isEqualTo(1);

        cluster.run(cluster.current(SOURCE, 1));
        assertThat(cluster.job.executions(REDUCE)).as("reduce sized while a source has not really finished")
                .isNull();
        cluster.run(current);
        cluster.runLive(REDUCE);
        assertThat(cluster.job.state()).isEqualTo(JobMasterState.FINISHED);
        assertThat(cluster.splitsReadByFinishedAttempts(SOURCE)).as("a split given out for a dead attempt is lost")
                .containsExactlyElementsOf(JobMasterSourceSplitsTest.FOUR_SPLITS);
    }
}
