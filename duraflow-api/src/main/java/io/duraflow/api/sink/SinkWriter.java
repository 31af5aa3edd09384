package io.duraflow.api.sink;

import io.duraflow.api.checkpoint.CheckpointAvailabilityProvider;
import io.duraflow.api.checkpoint.SnapshotAvailability;

/**
 * Writes one task's records. A task attempt may fail and be run again, so a writer should make
 * its output visible only in {@link #finish()}, in a way that a later attempt can repeat
 * (write to a temporary name, then rename over the final one).
 */
public interface SinkWriter<T> extends AutoCloseable, CheckpointAvailabilityProvider {
    void write(T record) throws Exception;

    /** All input was written: make it visible. */
    void finish() throws Exception;

    /**
     * Streaming: whether this writer can take its part of checkpoint {@code checkpointId} now
     * (see {@link SnapshotAvailability}). Default: available.
     */
    @Override
    default SnapshotAvailability isSnapshotAvailable(long checkpointId) {
        return SnapshotAvailability.available();
    }

    /** The task failed or was cancelled: remove what this attempt wrote. */
    default void abort() throws Exception {}

    @Override
    default void close() throws Exception {}
}
