package io.duraflow.checkpoint;

import io.duraflow.config.CheckpointingOptions;
import io.duraflow.config.Configuration;
import io.duraflow.config.IllegalConfigurationException;
import io.duraflow.fs.FileSystem;
import io.duraflow.fs.FileSystems;
import io.duraflow.fs.FsPath;
import io.duraflow.state.CheckpointDirectories;
import java.util.function.BooleanSupplier;
import org.apache.curator.framework.CuratorFramework;

/**
 * Builds what a job's {@link CheckpointCoordinator} needs from the cluster's configuration and HA
 * services, so the JobMaster wiring is a few calls:
 *
 * <pre>
 *   directories  execution.checkpointing.dir/&lt;job id&gt;/  (chk-n, shared, taskowned)
 *   id counter   ZooKeeper with HA (/jobs/&lt;job id&gt;/checkpoint-id-counter), else in memory
 *   store        pointers in the job's HA directory (&lt;ha job dir&gt;/checkpoints/), fenced by stillLeads
 * </pre>
 */
public final class CheckpointServices {
    private CheckpointServices() {
    }

    /**
     * The job's checkpoint directories.
     *
     * @throws IllegalConfigurationException if checkpointing is on without a directory, or the
     *     directory is not a path or URI of a known file system; the message says what to set
     */
    public static CheckpointDirectories directories(Configuration config, String jobId) {
        CheckpointingOptions.validate(config);
        String dir = config.get(CheckpointingOptions.DIR);
        if (dir == null) {
            throw new IllegalConfigurationException("no checkpoint directory: set " + CheckpointingOptions.DIR.key());
        }
        FsPath root;
        try {
            root = FsPath.parse(dir);
        } catch (IllegalArgumentException e) {
            throw new IllegalConfigurationException(CheckpointingOptions.DIR.key() + " '" + dir
                    + "' is not a path or file system URI: " + e.getMessage(), e);
        }
        try {
            FileSystems.get(root);
        } catch (FileSystems.UnsupportedFileSystemException e) {
            throw new IllegalConfigurationException(CheckpointingOptions.DIR.key() + ": " + e.getMessage(), e);
        }
        return CheckpointDirectories.of(root, jobId);
    }

    public static FileSystem fileSystem(CheckpointDirectories directories) {
        return FileSystems.get(directories.jobDirectory());
    }

    /** @param zooKeeper the cluster's namespaced Curator client with HA, or null without */
    public static CheckpointIdCounter idCounter(CuratorFramework zooKeeper, String jobId) {
        return zooKeeper == null ? new StandaloneCheckpointIdCounter() : new ZooKeeperCheckpointIdCounter(zooKeeper, jobId);
    }

    /**
     * @param haFileSystem the file system of the HA storage
     * @param jobHaDirectory the job's directory there ({@code HighAvailabilityServices.jobDirectory(jobId)})
     * @param checkpointFileSystem the file system of {@code execution.checkpointing.dir} ({@link #fileSystem})
     * @param stillLeads asks with a round trip whether this JobManager still leads
     */
    public static CompletedCheckpointStore completedCheckpointStore(Configuration config, FileSystem haFileSystem,
            FsPath jobHaDirectory, FileSystem checkpointFileSystem, String jobId, BooleanSupplier stillLeads) {
        return new FileSystemCompletedCheckpointStore(haFileSystem, checkpointFileSystem,
                FileSystemCompletedCheckpointStore.pointerDirectory(jobHaDirectory), jobId,
                config.get(CheckpointingOptions.NUM_RETAINED), stillLeads);
    }
}
