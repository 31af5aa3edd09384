package io.duraflow.checkpoint;

/**
 * One checkpoint as {@code duraflow checkpoints ID} shows it.
 *
 * @param endMs when it completed or failed; 0 while in progress
 * @param stateSize bytes of state acknowledged so far
 * @param files distinct state files it refers to
 * @param failure why it failed, or null
 */
public record CheckpointStats(long checkpointId, CheckpointKind kind, Status status, long triggerMs, long endMs,
        long stateSize, int files, CheckpointFailure failure) {
    public enum Status {
        IN_PROGRESS,
        COMPLETED,
        FAILED
    }

    public long durationMs(long nowMs) {
        return (endMs == 0 ? nowMs : endMs) - triggerMs;
    }
}
