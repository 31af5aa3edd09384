package io.duraflow.jobmanager;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.config.Configuration;
import io.duraflow.fs.FsPath;
import io.duraflow.jobstore.JobOutcome;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CheckpointRetentionStepTest {
    private static final String JOB = "0123456789abcdef";

    @TempDir
    Path dir;

    private Configuration cluster() {
        return Configuration.fromMap(Map.of("execution.checkpointing.dir", dir.toString()));
    }

    private Path checkpointsOfTheJob() throws Exception {
        Path chk = Files.createDirectories(dir.resolve(JOB).resolve("chk-3"));
        Files.writeString(chk.resolve("_metadata"), "x");
        return dir.resolve(JOB);
    }

    @Test
    void byDefaultAFinishedOrCancelledJobsCheckpointsAreDeletedAndAFailedJobsKept() throws Exception {
        for (JobOutcome outcome : JobOutcome.values()) {
            Path checkpoints = checkpointsOfTheJob();
            CheckpointRetentionStep.run(cluster(), Map.of(), JOB, outcome);
            boolean deleted = outcome == JobOutcome.FINISHED || outcome == JobOutcome.CANCELED;
            assertThat(Files.exists(checkpoints)).as("checkpoints of a job that ended as %s", outcome)
                    .isEqualTo(!deleted);
        }
    }

    @Test
    void retainOnCancellationKeepsThemAndTheJobsOwnSettingWins() throws Exception {
        Path checkpoints = checkpointsOfTheJob();
        CheckpointRetentionStep.run(cluster(), Map.of("execution.checkpointing.retention", "retain-on-cancellation"),
                JOB, JobOutcome.CANCELED);
        assertThat(checkpoints).exists();
    }

    @Test
    void theJobsDirectoryOverridesTheClustersAndARepeatedRunIsHarmless() throws Exception {
        Path other = Files.createDirectories(dir.resolve("other"));
        Files.createDirectories(other.resolve(JOB).resolve("chk-1"));
        Path clusterCheckpoints = checkpointsOfTheJob();

        assertThat(CheckpointRetentionStep.directoryToDelete(cluster(), Map.of("execution.checkpointing.dir",
                other.toString()), JOB, JobOutcome.FINISHED)).contains(FsPath.of(other.resolve(JOB)));
        CheckpointRetentionStep.run(cluster(), Map.of("execution.checkpointing.dir", other.toString()), JOB,
                JobOutcome.FINISHED);
        CheckpointRetentionStep.run(cluster(), Map.of("execution.checkpointing.dir", other.toString()), JOB,
                JobOutcome.FINISHED);

        assertThat(other.resolve(JOB)).doesNotExist();
        assertThat(clusterCheckpoints).exists();
    }

    @Test
    void withoutADirectoryOrWithAnInvalidConfigurationNothingIsDeleted() throws Exception {
        assertThat(CheckpointRetentionStep.directoryToDelete(Configuration.fromMap(Map.of()), Map.of(), JOB,
                JobOutcome.FINISHED)).isEmpty();
        Path checkpoints = checkpointsOfTheJob();
        CheckpointRetentionStep.run(cluster(), Map.of("execution.checkpointing.retention", "sometimes"), JOB,
                JobOutcome.FINISHED);
        assertThat(checkpoints).exists();
    }
}
