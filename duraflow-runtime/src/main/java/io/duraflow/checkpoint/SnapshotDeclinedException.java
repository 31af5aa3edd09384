package io.duraflow.checkpoint;

import io.duraflow.api.checkpoint.SnapshotAvailability;
import java.util.Objects;

/**
 * An operator coordinator (a split enumerator) said it cannot snapshot now: its {@code
 * isSnapshotAvailable} answered a soft or hard failure. Failing the coordinators' snapshot with
 * this declines the checkpoint with {@link CheckpointFailureReason#SNAPSHOT_UNAVAILABLE_SOFT} or
 * {@link CheckpointFailureReason#SNAPSHOT_UNAVAILABLE_HARD} instead of a coordinator failure.
 */
public final class SnapshotDeclinedException extends RuntimeException {
    private final CheckpointFailureReason reason;

    public SnapshotDeclinedException(String operator, SnapshotAvailability availability) {
        super(operator + ": " + Objects.requireNonNull(availability, "availability").message());
        if (availability.isAvailable()) {
            throw new IllegalArgumentException("a snapshot that is available is not declined");
        }
        this.reason = availability.kind() == SnapshotAvailability.Kind.SOFT_FAILURE
                ? CheckpointFailureReason.SNAPSHOT_UNAVAILABLE_SOFT : CheckpointFailureReason.SNAPSHOT_UNAVAILABLE_HARD;
    }

    public CheckpointFailureReason reason() {
        return reason;
    }
}
