package io.duraflow.checkpoint;

import io.duraflow.fs.FsPath;
import java.util.Objects;

/**
 * A savepoint or retained checkpoint (of any job) that a job starts from ({@code run
 * --from-savepoint}), read by {@link CheckpointCoordinator#restoreLatest} while the job has no
 * completed checkpoint of its own ({@link CheckpointRestorer} rule 2).
 *
 * @param metadataFile its {@code _metadata}
 * @param claim claim mode: the job takes over its files and deletes them once subsumed; else
 *     no-claim: the job never deletes them, and its first checkpoint is full
 */
public record InitialRestore(FsPath metadataFile, boolean claim) {
    public InitialRestore {
        Objects.requireNonNull(metadataFile, "metadataFile");
    }
}
