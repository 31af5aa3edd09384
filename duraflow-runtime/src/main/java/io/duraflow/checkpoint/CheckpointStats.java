package io.duraflow.checkpoint;

import io.duraflow.fs.FsPath;

/**
 * One checkpoint as {@code duraflow checkpoints ID} shows it.
 *
 * @param endMs when it completed or failed; 0 while in progress
 * @param stateSize bytes of state acknowledged so far: the full size, what a restore reads
 *     (files earlier checkpoints uploaded included)
 * @param checkpointedSize bytes this checkpoint wrote: the incremental size ({@code stateSize}
 *     without the shared files it reuses)
 * @param files distinct state files it refers to
 * @param filesUploaded distinct state files it wrote
 * @param filesReused distinct shared files an earlier checkpoint wrote that it refers to
 * @param directory its {@code chk-<n>/} directory, or the savepoint's directory
 * @param failure why it failed, or null
 */
public record CheckpointStats(long checkpointId, CheckpointKind kind, Status status, long triggerMs, long endMs,
        long stateSize, long checkpointedSize, int files, int filesUploaded, int filesReused, FsPath directory,
        CheckpointFailure failure) {
    public enum Status {
        IN_PROGRESS,
        COMPLETED,
        FAILED
    }

    public long durationMs(long nowMs) {
        return (endMs == 0 ? nowMs : endMs) - triggerMs;
    }
}
