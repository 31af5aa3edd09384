package io.duraflow.taskmanager.task;

import io.duraflow.api.metrics.MetricGroup;
import io.duraflow.api.checkpoint.SnapshotAvailability;
import io.duraflow.api.state.OperatorStateStore;
import io.duraflow.state.backend.KeyedStateBackend;

/**
 * The lifecycle of every operator in a task's chain, called by the task thread only (never
 * concurrently with processing), in this order:
 *
 * <ol>
 *   <li>{@link #initializeState} then {@link #open}, tail of the chain first, so that an
 *       operator that emits while opening finds its downstream open, and {@code open} can use
 *       restored state;
 *   <li>records, with {@link #snapshotState} and {@link #notifyCheckpointComplete} / {@link
 *       #notifyCheckpointAborted} between them (streaming; batch never calls these);
 *   <li>end of input ({@link Downstream#endInput()}, {@link HeadOperator#endInput(int)}), head
 *       first, so each operator can emit its last records before its downstream ends;
 *   <li>{@link #close}, head first, always: also after a failure or cancellation, where it must
 *       release what the operator holds (files, memory) without emitting.
 * </ol>
 *
 * <p>Every hook defaults to doing nothing: batch operators implement only what they use.
 */
public interface StreamOperator {
    default void initializeState(StateInitializationContext context) throws Exception {}

    default void open(OperatorContext context) throws Exception {}

    /**
     * Takes the synchronous part of a snapshot for checkpoint {@code checkpointId}. Batch
     * operators hold no state worth snapshotting; streaming adds the state handles returned here.
     */
    default void snapshotState(long checkpointId) throws Exception {}

    /**
     * Asked before any operator of the chain snapshots checkpoint {@code checkpointId}: whether
     * this operator can take its part now (seed 002). Anything but available makes the task
     * decline the checkpoint (soft: "not now", does not count as a failure; hard: counts).
     */
    default SnapshotAvailability snapshotAvailability(long checkpointId) throws Exception {
        return SnapshotAvailability.available();
    }

    default void notifyCheckpointComplete(long checkpointId) throws Exception {}

    /**
     * Event time reached {@code watermark} (streaming only): no record at or below it follows.
     * An operator that emits into a downstream fires what is due at it (event-time timers,
     * windows), then forwards the watermark, so it follows everything emitted for it; a terminal
     * operator (a sink, a collect) ignores it, which the default does. {@code Long.MAX_VALUE}
     * comes at the end of the input: every event-time timer fires.
     */
    default void processWatermark(long watermark) throws Exception {}

    default void notifyCheckpointAborted(long checkpointId) throws Exception {}

    default void close() throws Exception {}

    /** Who the operator runs as. */
    record OperatorContext(String jobId, int subtaskIndex, int parallelism, int attemptNumber, MetricGroup metrics) {
        /** A context whose metrics go nowhere (tests). */
        public OperatorContext(String jobId, int subtaskIndex, int parallelism, int attemptNumber) {
            this(jobId, subtaskIndex, parallelism, attemptNumber, MetricGroup.discarding());
        }
    }

    /**
     * What the operator starts from: {@code restoredCheckpointId} is the checkpoint whose state
     * it gets, or -1 when it starts empty (batch always does); its operator state, and its keyed
     * state if it is a keyed operator (else {@code null}), already restored. Batch operators get
     * neither.
     */
    record StateInitializationContext(long restoredCheckpointId, OperatorStateStore operatorState,
            KeyedStateBackend<Object> keyedState) {
        public static final StateInitializationContext EMPTY = new StateInitializationContext(-1, null, null);

        public boolean isRestored() {
            return restoredCheckpointId >= 0;
        }
    }
}
