package io.duraflow.checkpoint;

/**
 * What a task measured while taking its part of a checkpoint.
 *
 * @param alignmentMs from the first barrier to the last one on its inputs
 * @param syncMs the synchronous part on the task thread
 * @param asyncMs writing the state to checkpoint storage
 * @param bytesPersisted bytes written for this checkpoint
 */
public record CheckpointMetrics(long alignmentMs, long syncMs, long asyncMs, long bytesPersisted) {
    public static final CheckpointMetrics NONE = new CheckpointMetrics(0, 0, 0, 0);
}
