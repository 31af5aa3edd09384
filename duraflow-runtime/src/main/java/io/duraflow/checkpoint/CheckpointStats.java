package io.duraflow.checkpoint;

import io.duraflow.fs.FsPath;
import java.util.List;

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
 * @param failure why it failed, or null: a hard decline rather than a soft one, if both came
 * @param declines every decline of it in the order they came (task, soft or hard, message), also
 *     those after it was aborted ({@link CheckpointDeclines}); empty if no task declined it
 */
public record CheckpointStats(long checkpointId, CheckpointKind kind, Status status, long triggerMs, long endMs,
        long stateSize, long checkpointedSize, int files, int filesUploaded, int filesReused, FsPath directory,
        CheckpointFailure failure, List<CheckpointFailure> declines) {
    public CheckpointStats {
        declines = List.copyOf(declines);
    }

    /** Without declines other than {@code failure}'s, if it came from a task. */
    public CheckpointStats(long checkpointId, CheckpointKind kind, Status status, long triggerMs, long endMs,
            long stateSize, long checkpointedSize, int files, int filesUploaded, int filesReused, FsPath directory,
            CheckpointFailure failure) {
        this(checkpointId, kind, status, triggerMs, endMs, stateSize, checkpointedSize, files, filesUploaded,
                filesReused, directory, failure,
                failure == null || failure.task() == null ? List.of() : List.of(failure));
    }

    public enum Status {
        IN_PROGRESS,
        COMPLETED,
        FAILED
    }

    public long durationMs(long nowMs) {
        return (endMs == 0 ? nowMs : endMs) - triggerMs;
    }
}
