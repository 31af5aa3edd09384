package io.duraflow.jobmanager.jobmaster.checkpointing;

import io.duraflow.jobmanager.jobmaster.FakeCluster;
import io.duraflow.jobmanager.jobmaster.JobMasterState;
import io.duraflow.jobmanager.jobmaster.RecordingSequenceSource;
import io.duraflow.jobmanager.jobmaster.StreamingJobMasterTest;
import io.duraflow.jobmanager.jobmaster.TestJobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.checkpoint.CheckpointException;
import io.duraflow.checkpoint.CheckpointFailureReason;
import io.duraflow.checkpoint.CheckpointMetrics;
import io.duraflow.checkpoint.CheckpointTask;
import io.duraflow.checkpoint.CompletedCheckpoint;
import io.duraflow.fs.FsPath;
import io.duraflow.jobmanager.jobmaster.FakeSlotPool;
import io.duraflow.jobmanager.resourcemanager.RecordingGateways.Deployment;
import io.duraflow.rpc.proto.CheckpointKind;
import io.duraflow.state.TaskStateSnapshot;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link JobSavepoints}' rules on a streaming job master with fake TaskManagers. */
class JobSavepointsTest {
    @TempDir
    Path root;

    private FakeCluster running() {
        RecordingSequenceSource.clear();
        FakeCluster cluster = new FakeCluster(StreamingJobMasterTest.streamingJob(), FakeCluster.SETTINGS,
                FakeSlotPool.of(2, 4), FakeCluster.SESSION);
        cluster.enableCheckpoints(root);
        cluster.startStreaming();
        cluster.live().forEach(cluster::running);
        cluster.scheduler.runDue();
        return cluster;
    }

    private static CheckpointTask task(Deployment d) {
        return new CheckpointTask(d.vertex(), d.subtask(), d.attemptNumber());
    }

    private static void ackAll(FakeCluster cluster, long checkpointId) {
        for (Deployment d : cluster.live()) {
            cluster.job.acknowledgeCheckpoint(task(d), checkpointId, TaskStateSnapshot.EMPTY, CheckpointMetrics.NONE);
        }
        cluster.scheduler.runDue();
    }

    private FsPath target() {
        return FsPath.of(root.resolve("savepoints"));
    }

    private static Throwable failure(CompletableFuture<?> future) {
        assertThat(future).isCompletedExceptionally();
        try {
            future.join();
            throw new AssertionError("not failed");
        } catch (CompletionException e) {
            return e.getCause();
        }
    }

    @Test
    void aSavepointTriggersTheSourcesWithItsDirectoryAndASecondOneIsRefusedWhileItRuns() {
        FakeCluster cluster = running();

        CompletableFuture<CompletedCheckpoint> savepoint = cluster.job.triggerSavepoint(target(), false);
        cluster.scheduler.runDue();

        assertThat(cluster.gateways.triggers()).isNotEmpty().allSatisfy(t -> {
            assertThat(t.request().getKind()).isEqualTo(CheckpointKind.CHECKPOINT_KIND_SAVEPOINT);
            assertThat(t.request().getDirectory()).isEqualTo(target().resolve("savepoint-" + FakeCluster.JOB_ID
                    + "-1").toUri().toString());
        });
        assertThat(failure(cluster.job.triggerSavepoint(target(), false)))
                .isInstanceOf(SavepointRefusedException.class)
                .hasMessage("savepoint 1 of job job-1 is in progress already; wait for it ('duraflow checkpoints"
                        + " job-1' shows it)");

        ackAll(cluster, 1);
        assertThat(savepoint.join().directory()).isEqualTo(target().resolve("savepoint-job-1-1"));
        assertThat(cluster.job.state()).isEqualTo(JobMasterState.RUNNING);
    }

    @Test
    void cancelWithSavepointCancelsOnlyOnceTheSavepointCompletedAndNoPeriodicCheckpointComesMeanwhile() {
        FakeCluster cluster = running();

        CompletableFuture<CompletedCheckpoint> savepoint = cluster.job.triggerSavepoint(target(), true);
        cluster.scheduler.advance(3 * FakeCluster.CHECKPOINT_INTERVAL_MS);

        assertThat(cluster.gateways.triggers()).extracting(t -> t.request().getCheckpointId()).containsOnly(1L);
        assertThat(cluster.job.state()).isEqualTo(JobMasterState.RUNNING);
        ackAll(cluster, 1);

        assertThat(savepoint).isCompleted();
        assertThat(cluster.job.state()).isEqualTo(JobMasterState.CANCELLING);
        cluster.live().forEach(cluster::canceled);
        cluster.scheduler.runDue();
        assertThat(cluster.job.state()).isEqualTo(JobMasterState.CANCELED);
    }

    @Test
    void aFailedSavepointBeforeCancellingLeavesTheJobRunningWithPeriodicCheckpoints() {
        FakeCluster cluster = running();

        CompletableFuture<CompletedCheckpoint> savepoint = cluster.job.triggerSavepoint(target(), true);
        cluster.scheduler.runDue();
        Deployment source = cluster.live(0).get(0);
        cluster.job.declineCheckpoint(task(source), 1, new io.duraflow.checkpoint.CheckpointFailure(1,
                CheckpointFailureReason.DECLINED, "not now", null));
        cluster.scheduler.runDue();

        assertThat(failure(savepoint)).isInstanceOf(CheckpointException.class).hasMessageContaining("not now");
        assertThat(cluster.job.state()).isEqualTo(JobMasterState.RUNNING);
        cluster.scheduler.advance(FakeCluster.CHECKPOINT_INTERVAL_MS);
        assertThat(cluster.gateways.triggers()).as("periodic checkpoints resumed")
                .anyMatch(t -> t.request().getKind() == CheckpointKind.CHECKPOINT_KIND_CHECKPOINT);
    }

    @Test
    void aBatchJobOrAJobWithoutCheckpointingIsRefused() {
        FakeCluster batch = new FakeCluster(TestJobs.wordCount(2), FakeCluster.SETTINGS, FakeSlotPool.of(2, 4),
                FakeCluster.SESSION);
        batch.start();
        assertThatThrownBy(() -> batch.job.triggerSavepoint(target(), false).join())
                .hasCauseInstanceOf(SavepointRefusedException.class)
                .hasMessageEndingWith("job job-1 is a batch job: it takes no savepoints");

        FakeCluster unchecked = new FakeCluster(StreamingJobMasterTest.streamingJob(), FakeCluster.SETTINGS,
                FakeSlotPool.of(2, 4), FakeCluster.SESSION);
        unchecked.startStreaming();
        assertThat(failure(unchecked.job.triggerSavepoint(target(), false)))
                .hasMessageStartingWith("job job-1 runs with checkpointing off, so it takes no savepoints");
    }
}
