package io.duraflow.jobmanager.jobmaster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.jobmanager.jobmaster.checkpointing.SavepointRefusedException;

import io.duraflow.fs.FsPath;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What one {@link JobMode} does not do, the {@link JobMaster} refuses for it with a sentence that
 * says why, and leaves the job as it was: a batch job takes no checkpoints or savepoints and adopts
 * its kept tasks by a recovery plan; a streaming job restores its latest checkpoint and takes its
 * kept tasks over instead.
 */
class JobModeRefusalsTest {
    @TempDir
    Path root;

    @Test
    void aBatchJobRefusesCheckpointsSavepointsAndAStreamingTakeOver() {
        FakeCluster cluster = new FakeCluster(TestJobs.wordCount(4), FakeCluster.SETTINGS, FakeSlotPool.of(2, 4));

        assertThatThrownBy(() -> cluster.enableCheckpoints(root)).isInstanceOf(IllegalStateException.class)
                .hasMessage("job job-1 is a batch job: it takes no checkpoints");
        assertThatThrownBy(() -> cluster.job.startTakingOver(List.of(), null, tm -> tm))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("job job-1 is a batch job; its kept tasks are adopted by #adopt");
        assertThat(cluster.job.triggerSavepoint(FsPath.of(root), false)).failsWithin(Duration.ZERO)
                .withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(SavepointRefusedException.class);
        assertThat(cluster.job.checkpointCoordinator()).isNull();
        assertThat(cluster.job.checkpointHistory()).isEmpty();
        assertThat(cluster.job.state()).isEqualTo(JobMasterState.CREATED);
    }

    @Test
    void aStreamingJobRefusesABatchRecoveryPlanAndAdoption() {
        FakeCluster cluster = new FakeCluster(StreamingJobMasterTest.streamingJob(), FakeCluster.SETTINGS,
                FakeSlotPool.of(2, 4));

        // Refused before the plan is looked at.
        assertThatThrownBy(() -> cluster.job.restore(null)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("is a streaming job: it restores its latest checkpoint");
        assertThatThrownBy(() -> cluster.job.adopt(null, tm -> tm)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("its kept tasks are taken over by #startTakingOver");
        assertThat(cluster.job.restoredTasks()).isZero();
        assertThat(cluster.job.state()).isEqualTo(JobMasterState.CREATED);
    }
}
