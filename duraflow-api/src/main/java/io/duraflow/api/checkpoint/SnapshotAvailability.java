package io.duraflow.api.checkpoint;

import java.util.Objects;

/**
 * Whether a source reader, split enumerator, sink writer, keyed function or any other {@link
 * CheckpointAvailabilityProvider} can take its part of a
 * checkpoint now (seed 002, "checkpoint rejection"). Asked before anything is snapshotted:
 *
 * <ul>
 *   <li>{@link #available()}: go ahead (the default everywhere);
 *   <li>{@link #softFailure(String)}: "not now", an expected moment without a useful snapshot (a
 *       change-data-capture source in the middle of a table chunk). The checkpoint is declined at
 *       once and never counts toward {@code execution.checkpointing.tolerable-failed-checkpoints};
 *       only {@code execution.checkpointing.tolerable-failed-checkpoints-timeout} bounds how long
 *       checkpoints may keep failing this way;
 *   <li>{@link #hardFailure(String)}: "this is wrong", a snapshot now would be incorrect and that
 *       is not expected. The checkpoint is declined and counts like any other failure.
 * </ul>
 *
 * The message is shown to users (checkpoint history, job status), so say why, in one line.
 */
public final class SnapshotAvailability {
    /** The three answers. */
    public enum Kind {
        AVAILABLE,
        SOFT_FAILURE,
        HARD_FAILURE
    }

    private static final SnapshotAvailability AVAILABLE = new SnapshotAvailability(Kind.AVAILABLE, "");

    private final Kind kind;
    private final String message;

    private SnapshotAvailability(Kind kind, String message) {
        this.kind = kind;
        this.message = message;
    }

    public static SnapshotAvailability available() {
        return AVAILABLE;
    }

    /** "Not now": expected, does not count as a failed checkpoint. */
    public static SnapshotAvailability softFailure(String message) {
        return new SnapshotAvailability(Kind.SOFT_FAILURE, checkMessage(message));
    }

    /** "This is wrong": counts as a failed checkpoint. */
    public static SnapshotAvailability hardFailure(String message) {
        return new SnapshotAvailability(Kind.HARD_FAILURE, checkMessage(message));
    }

    private static String checkMessage(String message) {
        if (message == null || message.isBlank()) {
            throw new IllegalArgumentException("say why the snapshot is unavailable: the message is shown to users");
        }
        return message;
    }

    public Kind kind() {
        return kind;
    }

    /** Why it is unavailable; empty when available. */
    public String message() {
        return message;
    }

    public boolean isAvailable() {
        return kind == Kind.AVAILABLE;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof SnapshotAvailability that && kind == that.kind && message.equals(that.message);
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, message);
    }

    @Override
    public String toString() {
        return isAvailable() ? "available" : kind.name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ') + ": "
                + message;
    }
}
