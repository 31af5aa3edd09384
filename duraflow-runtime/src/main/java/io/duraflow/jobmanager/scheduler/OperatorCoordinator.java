package io.duraflow.jobmanager.scheduler;

import io.duraflow.rpc.proto.OperatorEvent;

/**
 * The JobManager-side part of an operator (e.g. a source's split enumerator). All methods run
 * on the JobManager main thread.
 */
public interface OperatorCoordinator extends AutoCloseable {
    void start() throws Exception;

    void handleEventFromOperator(int subtask, OperatorEvent event) throws Exception;

    /** The subtask's current attempt is replaced: whatever it was given must be handed out again. */
    void subtaskReset(int subtask) throws Exception;

    /** The coordinator's state; batch jobs use checkpoint id -1. */
    byte[] snapshot(long checkpointId) throws Exception;

    /** Restores the state of {@link #snapshot}; forgets per-subtask assignments. */
    void resetToSnapshot(long checkpointId, byte[] state) throws Exception;

    @Override
    void close() throws Exception;
}
