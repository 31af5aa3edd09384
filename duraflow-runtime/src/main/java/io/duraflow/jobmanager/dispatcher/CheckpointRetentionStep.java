package io.duraflow.jobmanager.dispatcher;

import io.duraflow.checkpoint.CheckpointDirectoryScan;
import io.duraflow.checkpoint.CompletedCheckpoint;
import io.duraflow.checkpoint.FileSystemCompletedCheckpointStore;
import io.duraflow.config.CheckpointRetention;
import io.duraflow.config.CheckpointingOptions;
import io.duraflow.config.Configuration;
import io.duraflow.fs.FileSystem;
import io.duraflow.fs.FileSystems;
import io.duraflow.fs.FsPath;
import io.duraflow.jobstore.JobOutcome;
import io.duraflow.state.CheckpointDirectories;
import java.io.IOException;
import java.nio.file.DirectoryNotEmptyException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cleanup step for an ended job's checkpoints ({@code <execution.checkpointing.dir>/<job
 * id>/}). Rules:
 * <ol>
 *   <li>With {@code delete-on-cancellation} (the default) the directory goes when the job finished
 *       or was cancelled.</li>
 *   <li>Otherwise (the job failed for good, or {@code retain-on-cancellation}) the retained
 *       checkpoints stay, each with every file it refers to, and everything else under the
 *       directory goes: files of checkpoints that were pending when the job ended, of subsumed
 *       checkpoints whose deletion did not run, and what late tasks wrote ({@link
 *       CheckpointDirectoryScan}'s orphans), then the directories left empty. The retained
 *       checkpoints are those the completed-checkpoint store points to (in the job's HA
 *       directory, which a later step deletes).</li>
 *   <li>If a pointer or a retained checkpoint's metadata cannot be read, nothing is deleted: what
 *       cannot be told apart from a retained checkpoint's file stays.</li>
 *   <li>Savepoints are never deleted (they are not orphans even inside the directory).</li>
 * </ol>
 * Runs before the job graph is removed, since the job's configuration is read from it;
 * idempotent, so a retried cleanup runs it again safely.
 */
final class CheckpointRetentionStep {
    private static final Logger LOG = LoggerFactory.getLogger(CheckpointRetentionStep.class);

    private CheckpointRetentionStep() {
    }

    /**
     * Rule 1: the checkpoint directory of the job to delete whole now, or empty: checkpointing has
     * no directory, the outcome keeps it, or the retention keeps it.
     *
     * @param jobConfig the job's configuration overrides, as submitted
     * @throws IllegalArgumentException if the merged configuration is not valid
     */
    static Optional<FsPath> directoryToDelete(Configuration clusterConfig, Map<String, String> jobConfig,
            String jobId, JobOutcome outcome) {
        Configuration config = merged(clusterConfig, jobConfig);
        String dir = config.get(CheckpointingOptions.DIR);
        if (dir == null) {
            return Optional.empty();
        }
        boolean delete = (outcome == JobOutcome.FINISHED || outcome == JobOutcome.CANCELED)
                && config.get(CheckpointingOptions.RETENTION) == CheckpointRetention.DELETE_ON_CANCELLATION;
        return delete ? Optional.of(CheckpointDirectories.of(FsPath.parse(dir), jobId).jobDirectory())
                : Optional.empty();
    }

    /**
     * Deletes what {@link #directoryToDelete} names, or else what no retained checkpoint uses (rule
     * 2); a job whose configuration no longer reads is left alone.
     *
     * @param haFileSystem the file system of the HA storage
     * @param jobHaDirectory the job's HA directory, where its completed-checkpoint pointers are
     */
    static void run(Configuration clusterConfig, Map<String, String> jobConfig, String jobId, JobOutcome outcome,
            FileSystem haFileSystem, FsPath jobHaDirectory) throws IOException {
        Optional<FsPath> directory;
        String dir;
        try {
            directory = directoryToDelete(clusterConfig, jobConfig, jobId, outcome);
            dir = merged(clusterConfig, jobConfig).get(CheckpointingOptions.DIR);
        } catch (IllegalArgumentException e) {
            LOG.warn("Job {}: not deleting its checkpoints: its configuration is not valid ({})", jobId,
                    e.getMessage());
            return;
        }
        if (directory.isPresent()) {
            if (FileSystems.get(directory.get()).deleteRecursively(directory.get())) {
                LOG.info("Job {} ended as {}: deleted its checkpoints under {}", jobId, outcome, directory.get());
            }
        } else if (dir != null) {
            deleteWhatNoRetainedCheckpointUses(CheckpointDirectories.of(FsPath.parse(dir), jobId), jobId, outcome,
                    haFileSystem, jobHaDirectory);
        }
    }

    /** Rules 2 to 4. */
    private static void deleteWhatNoRetainedCheckpointUses(CheckpointDirectories directories, String jobId,
            JobOutcome outcome, FileSystem haFileSystem, FsPath jobHaDirectory) throws IOException {
        FileSystem fileSystem = FileSystems.get(directories.jobDirectory());
        if (!fileSystem.exists(directories.jobDirectory())) {
            return;
        }
        FileSystemCompletedCheckpointStore store = new FileSystemCompletedCheckpointStore(haFileSystem, fileSystem,
                FileSystemCompletedCheckpointStore.pointerDirectory(jobHaDirectory), jobId, 1, () -> true);
        List<CompletedCheckpoint> retained = store.recover();
        if (!store.recoveryWarnings().isEmpty()) {
            LOG.warn("Job {} ended as {}: keeping everything under {}, since not every retained checkpoint can be"
                    + " read: {}", jobId, outcome, directories.jobDirectory(), store.recoveryWarnings());
            return;
        }
        CheckpointDirectoryScan.Result scan = CheckpointDirectoryScan.scan(fileSystem, directories, retained);
        for (FsPath orphan : scan.orphans()) {
            fileSystem.delete(orphan);
        }
        CheckpointDirectoryScan.Result after = CheckpointDirectoryScan.scan(fileSystem, directories, retained);
        for (FsPath empty : after.emptyDirectories()) {
            deleteIfEmpty(fileSystem, empty);
        }
        if (retained.isEmpty()) {
            deleteIfEmpty(fileSystem, directories.jobDirectory());
        }
        if (!scan.missing().isEmpty()) {
            LOG.warn("Job {}: its retained checkpoints refer to files that are missing: {}", jobId, scan.describe());
        }
        LOG.info("Job {} ended as {}: its checkpoints stay under {}: retained {}; deleted {} file(s) none of them"
                + " uses", jobId, outcome, directories.jobDirectory(),
                retained.stream().map(c -> String.valueOf(c.checkpointId())).toList(), scan.orphans().size());
    }

    private static void deleteIfEmpty(FileSystem fileSystem, FsPath directory) throws IOException {
        try {
            fileSystem.delete(directory);
        } catch (DirectoryNotEmptyException e) {
            // a file appeared meanwhile (a late task): it stays for a retried cleanup
        }
    }

    private static Configuration merged(Configuration clusterConfig, Map<String, String> jobConfig) {
        Map<String, String> merged = new HashMap<>(clusterConfig.toMap());
        merged.putAll(jobConfig);
        return Configuration.fromMap(merged);
    }
}
