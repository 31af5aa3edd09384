package io.duraflow.checkpoint;

import io.duraflow.fs.FsPath;

/**
 * What a task is told when checkpoint {@code checkpointId} starts.
 *
 * @param timestampMs when the coordinator triggered it
 * @param directory where state private to this checkpoint goes: {@code chk-<n>/}, or the savepoint's directory
 */
public record CheckpointTrigger(long checkpointId, long timestampMs, CheckpointKind kind, FsPath directory) {
}
