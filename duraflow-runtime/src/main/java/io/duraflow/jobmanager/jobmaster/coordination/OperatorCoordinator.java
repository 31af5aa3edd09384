package io.duraflow.jobmanager.jobmaster.coordination;

import io.duraflow.rpc.proto.OperatorEvent;

/**
 * The JobManager-side part of an operator (e.g. a source's split enumerator). All methods but
 * {@link #start} run on the JobManager main thread; start may run on another thread, before any
 * other method is called.
 */
public interface OperatorCoordinator extends AutoCloseable {
    void start() throws Exception;

    void handleEventFromOperator(int subtask, OperatorEvent event) throws Exception;

    /**
     * The subtask's attempt was replaced by a new one that does not run yet: whatever the old
     * attempt was given must be handed out again.
     */
    void subtaskReset(int subtask) throws Exception;

    /**
     * Asked before {@link #snapshot} for a streaming checkpoint: whether the coordinator can take
     * its part now (a split enumerator's {@code isSnapshotAvailable}, seed 002).
     */
    default io.duraflow.api.checkpoint.SnapshotAvailability snapshotAvailability(long checkpointId) {
        return io.duraflow.api.checkpoint.SnapshotAvailability.available();
    }

    /** The coordinator's state; batch jobs use checkpoint id -1. */
    byte[] snapshot(long checkpointId) throws Exception;

    /** Restores the state of {@link #snapshot}; forgets per-subtask assignments. */
    void resetToSnapshot(long checkpointId, byte[] state) throws Exception;

    @Override
    void close() throws Exception;
}
