package io.duraflow.jobmanager.jobmaster;

import io.duraflow.jobmanager.jobmaster.execution.ExecutionState;

import static io.duraflow.jobmanager.jobmaster.TestJobs.REDUCE;
import static io.duraflow.jobmanager.jobmaster.TestJobs.SOURCE;
import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.jobmanager.resourcemanager.RecordingGateways.Cancel;
import io.duraflow.jobmanager.resourcemanager.RecordingGateways.Deployment;
import io.duraflow.jobmanager.resourcemanager.RecordingGateways.Release;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Cancelling a job: who is told to stop, and when the job counts as cancelled. */
class JobMasterCancelTest {
    private static final long DELAY = FakeCluster.SETTINGS.restartDelayMs();

    @Test
    void cancelStopsTheActiveTasksAndEndsWhenAllConfirmed() {
        FakeCluster cluster = FakeCluster.started(TestJobs.wordCount(4), FakeSlotPool.of(2, 2));
        Deployment s0 = cluster.current(SOURCE, 0);
        Deployment s1 = cluster.current(SOURCE, 1); // still deploying
        cluster.running(s0);

        cluster.job.cancel();

        assertThat(cluster.job.state()).isEqualTo(JobMasterState.CANCELLING);
        assertThat(cluster.gateways.cancels()).containsExactly(new Cancel("tm-1", s0.attempt()),
                new Cancel("tm-2", s1.attempt()));
        assertThat(cluster.execution(SOURCE, 0).state()).isEqualTo(ExecutionState.CANCELING);
        assertThat(cluster.execution(SOURCE, 1).state()).isEqualTo(ExecutionState.CANCELING);
        cluster.job.cancel();
        assertThat(cluster.gateways.cancels()).as("cancels after a second cancel()").hasSize(2);

        cluster.running(s1); // a late RUNNING does not undo the cancellation
        cluster.canceled(s0);
        assertThat(cluster.job.state()).isEqualTo(JobMasterState.CANCELLING);
        assertThat(cluster.terminations).isEmpty();
        assertThat(cluster.slots.usedTotal()).isEqualTo(1);

        cluster.canceled(s1);
        assertThat(cluster.job.state()).isEqualTo(JobMasterState.CANCELED);
        assertThat(cluster.terminations).containsExactly(JobMasterState.CANCELED);
        assertThat(cluster.job.status().getFailure()).contains("cancelled");
        assertThat(cluster.job.restarts()).isZero();
        assertThat(cluster.slots.usedTotal()).isZero();
        assertThat(cluster.slots.invalidFrees()).isEmpty();
        assertThat(cluster.gateways.releases()).containsExactlyInAnyOrder(
                new Release("tm-1", FakeCluster.JOB_ID, List.of()), new Release("tm-2", FakeCluster.JOB_ID, List.of()));
        cluster.scheduler.advance(10 * DELAY);
        assertThat(cluster.gateways.deployments()).hasSize(2);
    }

    @Test
    void tasksThatFinishFailOrAreLostWhileCancellingCountAsStoppedAndDoNotRestart() {
        FakeCluster cluster = FakeCluster.started(TestJobs.sourceOnly(3, 3), FakeSlotPool.of(3, 1));
        List<Deployment> tasks = cluster.live();
        assertThat(tasks).extracting(Deployment::tmId).containsExactly("tm-1", "tm-2", "tm-3");
        tasks.forEach(cluster::running);
        cluster.job.cancel();

        cluster.finish(tasks.get(0));
        cluster.fail(tasks.get(1), "interrupted");
        assertThat(cluster.job.state()).isEqualTo(JobMasterState.CANCELLING);
        cluster.slots.removeTaskManager("tm-3");
        cluster.job.onTaskManagerLost("tm-3");

        assertThat(cluster.job.state()).isEqualTo(JobMasterState.CANCELED);
        assertThat(cluster.job.restarts()).isZero();
        assertThat(cluster.scheduler.pending()).isZero();
        assertThat(cluster.gateways.deployments()).hasSize(3);
    }

    @Test
    void forceCancelledEndsTheJobWithoutConfirmations() {
        FakeCluster cluster = FakeCluster.started(TestJobs.wordCount(4), FakeSlotPool.of(2, 2));
        cluster.job.forceCancelled();
        assertThat(cluster.job.state()).as("forceCancelled() of a job nobody cancelled")
                .isEqualTo(JobMasterState.RUNNING);

        cluster.job.cancel();
        cluster.job.forceCancelled();

        assertThat(cluster.job.state()).isEqualTo(JobMasterState.CANCELED);
        assertThat(cluster.terminations).containsExactly(JobMasterState.CANCELED);
        assertThat(cluster.slots.usedTotal()).isZero();
        assertThat(cluster.gateways.releases()).extracting(Release::tmId).containsExactlyInAnyOrder("tm-1", "tm-2");
    }

    @Test
    void cancelWhileOnlyWaitingForARestartEndsAtOnceAndNothingIsDeployedLater() {
        FakeCluster cluster = FakeCluster.started(TestJobs.wordCount(4), FakeSlotPool.of(2, 2));
        cluster.run(cluster.current(SOURCE, 1));
        cluster.fail(cluster.current(SOURCE, 0), "boom");
        assertThat(cluster.live()).isEmpty();

        cluster.job.cancel();

        assertThat(cluster.job.state()).isEqualTo(JobMasterState.CANCELED);
        assertThat(cluster.gateways.cancels()).isEmpty();
        cluster.scheduler.advance(DELAY);
        assertThat(cluster.gateways.deployments()).hasSize(2);
        assertThat(cluster.job.executions(REDUCE)).isNull();
    }
}
