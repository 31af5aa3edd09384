package io.duraflow.network;

import java.util.Objects;

/**
 * Events a producer puts into the stream of every subpartition, each as an element of its own.
 * Events need no credit (they are few and small: one per checkpoint per channel) and use no
 * network memory. Watermarks (event time) will be one more permitted record here and one more
 * case of {@code StreamEvent} in duraflow.proto.
 */
public sealed interface NetworkEvent extends BufferOrEvent
        permits NetworkEvent.CheckpointBarrier, NetworkEvent.CancelCheckpointMarker, NetworkEvent.EndOfPartition {

    /** Whether a barrier starts a checkpoint (owned and deleted by the job) or a savepoint (owned by the user). */
    enum CheckpointKind { CHECKPOINT, SAVEPOINT }

    /**
     * Everything before it in a channel belongs to checkpoint {@code checkpointId}, everything
     * after it to later ones.
     */
    record CheckpointBarrier(long checkpointId, long timestampMs, CheckpointKind kind) implements NetworkEvent {
        public CheckpointBarrier {
            if (checkpointId < 0) {
                throw new IllegalArgumentException("checkpoint id must be >= 0, got " + checkpointId);
            }
            Objects.requireNonNull(kind, "kind");
        }
    }

    /**
     * Checkpoint {@code checkpointId} was given up upstream (declined, failed or expired): a task
     * aligning it releases its held channels instead of waiting for barriers that never come.
     */
    record CancelCheckpointMarker(long checkpointId) implements NetworkEvent {
    }

    /** The producer finished: nothing follows in this subpartition. */
    record EndOfPartition() implements NetworkEvent {
        public static final EndOfPartition INSTANCE = new EndOfPartition();
    }
}
