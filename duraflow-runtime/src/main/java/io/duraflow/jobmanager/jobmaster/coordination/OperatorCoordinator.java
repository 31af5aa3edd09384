package io.duraflow.jobmanager.jobmaster.coordination;

import io.duraflow.rpc.proto.OperatorEvent;

/**
 * The JobManager-side part of an operator (e.g. a source's split enumerator). Every method runs on
 * the JobManager main thread (its mailbox), so an implementation needs no lock, volatile or
 * atomic for its state. The one part that runs elsewhere is its {@link Start}, which touches none
 * of that state and is handed over in a mail.
 */
public interface OperatorCoordinator extends AutoCloseable {
    /**
     * The coordinator's start, made on the main thread before any other method but {@link #close}
     * is called, to run on another thread (a source's enumerator lists its input there, which may
     * take long).
     */
    Start start();

    /**
     * A coordinator's start. {@link #run} runs on another thread and touches only what the start
     * holds; that thread owns the start until run ends. Then the start is either handed over to
     * the main thread, in a mail, which calls {@link #handOver}, or never handed over (its run
     * failed, took too long, or the coordinator was closed first) and {@link #discard discarded}
     * by whichever thread owns it then.
     */
    interface Start {
        /** Off the main thread: starts what the coordinator needs (e.g. creates and starts a split enumerator). */
        void run() throws Exception;

        /** Main thread, after {@link #run} returned: what the start made becomes the coordinator's, which goes live. */
        void handOver();

        /** The start is never handed over: closes what it made. */
        void discard() throws Exception;
    }

    void handleEventFromOperator(int subtask, OperatorEvent event) throws Exception;

    /**
     * The subtask's attempt was replaced by a new one that does not run yet: whatever the old
     * attempt was given must be handed out again.
     */
    void subtaskReset(int subtask) throws Exception;

    /**
     * Asked before {@link #snapshot} for a streaming checkpoint: whether the coordinator can take
     * its part now (a split enumerator's {@code isSnapshotAvailable}).
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
