package io.duraflow.state;

import io.duraflow.fs.FsPath;
import java.util.Objects;

/**
 * Where a job's checkpoints live, under {@code execution.checkpointing.dir} (never inside the
 * job's HA directory, which cleanup deletes):
 *
 * <pre>
 * &lt;dir&gt;/&lt;job id&gt;/
 *     chk-&lt;n&gt;/          state only checkpoint n uses, and its _metadata; deleted with the checkpoint
 *     shared/           state several checkpoints use (incremental SST files); reference-counted
 *     taskowned/        state a TaskManager owns across checkpoints (merged files, seed 003)
 * </pre>
 */
public record CheckpointDirectories(FsPath jobDirectory) {
    public static final String METADATA_FILE = "_metadata";

    public CheckpointDirectories {
        Objects.requireNonNull(jobDirectory, "jobDirectory");
    }

    public static CheckpointDirectories of(FsPath checkpointsRoot, String jobId) {
        return new CheckpointDirectories(checkpointsRoot.resolve(jobId));
    }

    public FsPath checkpoint(long checkpointId) {
        return jobDirectory.resolve("chk-" + checkpointId);
    }

    public FsPath metadata(long checkpointId) {
        return checkpoint(checkpointId).resolve(METADATA_FILE);
    }

    public FsPath shared() {
        return jobDirectory.resolve("shared");
    }

    public FsPath taskOwned() {
        return jobDirectory.resolve("taskowned");
    }
}
