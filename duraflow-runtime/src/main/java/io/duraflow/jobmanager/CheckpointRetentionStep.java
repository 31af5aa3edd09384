package io.duraflow.jobmanager;

import io.duraflow.config.CheckpointRetention;
import io.duraflow.config.CheckpointingOptions;
import io.duraflow.config.Configuration;
import io.duraflow.fs.FileSystems;
import io.duraflow.fs.FsPath;
import io.duraflow.jobstore.JobOutcome;
import io.duraflow.state.CheckpointDirectories;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cleanup step that deletes an ended job's checkpoints ({@code <execution.checkpointing.dir>/<job
 * id>/}) as {@code execution.checkpointing.retention} says: with {@code delete-on-cancellation}
 * (the default) when the job finished or was cancelled, never when it failed (its latest
 * checkpoint is what it can be started again from). Runs before the job graph is removed, since
 * the job's configuration is read from it; idempotent, so a retried cleanup runs it again safely.
 */
final class CheckpointRetentionStep {
    private static final Logger LOG = LoggerFactory.getLogger(CheckpointRetentionStep.class);

    private CheckpointRetentionStep() {
    }

    /**
     * The checkpoint directory of the job to delete now, or empty: checkpointing has no directory,
     * the outcome keeps it, or the retention keeps it.
     *
     * @param jobConfig the job's configuration overrides, as submitted
     * @throws IllegalArgumentException if the merged configuration is not valid
     */
    static Optional<FsPath> directoryToDelete(Configuration clusterConfig, Map<String, String> jobConfig,
            String jobId, JobOutcome outcome) {
        Map<String, String> merged = new HashMap<>(clusterConfig.toMap());
        merged.putAll(jobConfig);
        Configuration config = Configuration.fromMap(merged);
        String dir = config.get(CheckpointingOptions.DIR);
        if (dir == null) {
            return Optional.empty();
        }
        boolean delete = (outcome == JobOutcome.FINISHED || outcome == JobOutcome.CANCELED)
                && config.get(CheckpointingOptions.RETENTION) == CheckpointRetention.DELETE_ON_CANCELLATION;
        FsPath directory = CheckpointDirectories.of(FsPath.parse(dir), jobId).jobDirectory();
        if (!delete) {
            LOG.info("Job {} ended as {}: its checkpoints stay under {} ({} is {})", jobId, outcome, directory,
                    CheckpointingOptions.RETENTION.key(), config.get(CheckpointingOptions.RETENTION));
            return Optional.empty();
        }
        return Optional.of(directory);
    }

    /** Deletes what {@link #directoryToDelete} names; a job whose configuration no longer reads is left alone. */
    static void run(Configuration clusterConfig, Map<String, String> jobConfig, String jobId, JobOutcome outcome)
            throws IOException {
        Optional<FsPath> directory;
        try {
            directory = directoryToDelete(clusterConfig, jobConfig, jobId, outcome);
        } catch (IllegalArgumentException e) {
            LOG.warn("Job {}: not deleting its checkpoints: its configuration is not valid ({})", jobId,
                    e.getMessage());
            return;
        }
        if (directory.isPresent() && FileSystems.get(directory.get()).deleteRecursively(directory.get())) {
            LOG.info("Job {} ended as {}: deleted its checkpoints under {}", jobId, outcome, directory.get());
        }
    }
}
