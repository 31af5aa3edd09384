package io.duraflow.checkpoint;

import io.duraflow.fs.FsPath;

/**
 * What a task is told when checkpoint {@code checkpointId} starts.
 *
 * @param timestampMs when the coordinator triggered it
 * @param directory where state private to this checkpoint goes: {@code chk-<n>/}, or the savepoint's
 *     directory (then every file of the savepoint goes there, so it is self-contained)
 * @param full a checkpoint that must refer to no file of an earlier checkpoint (the job's checkpoints
 *     after a restore in no-claim mode, until one completes); always false for a savepoint, which is
 *     self-contained anyway
 */
public record CheckpointTrigger(long checkpointId, long timestampMs, CheckpointKind kind, FsPath directory,
        boolean full) {
    public CheckpointTrigger(long checkpointId, long timestampMs, CheckpointKind kind, FsPath directory) {
        this(checkpointId, timestampMs, kind, directory, false);
    }
}
