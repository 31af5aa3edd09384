package io.duraflow.exchange.pipelined;

import java.util.Objects;

/**
 * Events a producer puts into the stream of every subpartition, each as an element of its own.
 * Events need no credit (they are few and small: one per checkpoint per channel) and use no
 * network memory. Watermarks (event time) will be one more permitted record here and one more
 * case of {@code StreamEvent} in duraflow.proto.
 */
public sealed interface NetworkEvent extends BufferOrEvent
        permits NetworkEvent.CheckpointBarrier, NetworkEvent.CancelCheckpointMarker, NetworkEvent.EndOfPartition {

    /**
     * Whether a barrier starts a checkpoint (owned and deleted by the job), a full checkpoint (one
     * that refers to no file of an earlier checkpoint: after a restore in no-claim mode) or a
     * savepoint (owned by the user, self-contained, in the canonical format).
     */
    enum CheckpointKind { CHECKPOINT, FULL_CHECKPOINT, SAVEPOINT }

    /**
     * Everything before it in a channel belongs to checkpoint {@code checkpointId}, everything
     * after it to later ones.
     *
     * @param savepointDirectory a savepoint's directory (a file system URI), where every task
     *     writes its part; null for the other kinds
     */
    record CheckpointBarrier(long checkpointId, long timestampMs, CheckpointKind kind, String savepointDirectory)
            implements NetworkEvent {
        public CheckpointBarrier {
            if (checkpointId < 0) {
                throw new IllegalArgumentException("checkpoint id must be >= 0, got " + checkpointId);
            }
            Objects.requireNonNull(kind, "kind");
            if ((kind == CheckpointKind.SAVEPOINT) != (savepointDirectory != null)) {
                throw new IllegalArgumentException("a savepoint barrier, and only one, names the savepoint's"
                        + " directory: " + kind + ", " + savepointDirectory);
            }
        }

        /** A barrier of a checkpoint (not a savepoint). */
        public CheckpointBarrier(long checkpointId, long timestampMs, CheckpointKind kind) {
            this(checkpointId, timestampMs, kind, kind == CheckpointKind.SAVEPOINT ? "" : null);
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
