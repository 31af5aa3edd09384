package io.duraflow.exchange.pipelined;

import java.util.Objects;

/**
 * Events a producer puts into the stream of every subpartition, each as an element of its own.
 * Events need no credit (they are few and small: one per checkpoint, or per watermark period, per
 * channel) and use no network memory.
 */
public sealed interface NetworkEvent extends BufferOrEvent
        permits NetworkEvent.CheckpointBarrier, NetworkEvent.CancelCheckpointMarker, NetworkEvent.EndOfPartition,
        NetworkEvent.Watermark, NetworkEvent.WatermarkStatus {

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

    /**
     * Event time: no record with a timestamp at or below {@code timestamp} follows in this
     * channel. A consumer's event time is the lowest watermark of its channels that are not idle.
     */
    record Watermark(long timestamp) implements NetworkEvent {
    }

    /**
     * The producer has no records for now ({@code idle}) and its watermark must not hold back its
     * consumers' event time, or it has again (its next watermark or record follows).
     */
    record WatermarkStatus(boolean idle) implements NetworkEvent {
        public static final WatermarkStatus IDLE = new WatermarkStatus(true);
        public static final WatermarkStatus ACTIVE = new WatermarkStatus(false);
    }

    /** The producer finished: nothing follows in this subpartition. */
    record EndOfPartition() implements NetworkEvent {
        public static final EndOfPartition INSTANCE = new EndOfPartition();
    }
}
