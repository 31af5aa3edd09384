package io.duraflow.api.checkpoint;

import java.time.Duration;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * The seed's "local continuous soft failure tolerance": a component that may say "not now" for a
 * while declares how long, and this turns its soft failures into a hard one once it has been
 * unavailable for longer without a break. A reader whose table chunk never ends then fails its
 * checkpoints for real instead of postponing them forever.
 *
 * <pre>{@code
 * private final SoftFailureTolerance tolerance = new SoftFailureTolerance(Duration.ofMinutes(5));
 *
 * public SnapshotAvailability isSnapshotAvailable(long checkpointId) {
 *     return tolerance.check(inChunk ? SnapshotAvailability.softFailure("reading chunk " + chunk)
 *             : SnapshotAvailability.available());
 * }
 * }</pre>
 *
 * Not thread-safe: call it from the thread that answers {@code isSnapshotAvailable}.
 */
public final class SoftFailureTolerance {
    private final long maxUnavailableMs;
    private final LongSupplier clockMs;
    /** When the current run of soft failures began; -1 while available. */
    private long unavailableSinceMs = -1;

    public SoftFailureTolerance(Duration maxUnavailable) {
        this(maxUnavailable, System::currentTimeMillis);
    }

    /** With an injected clock (milliseconds), for tests. */
    public SoftFailureTolerance(Duration maxUnavailable, LongSupplier clockMs) {
        Objects.requireNonNull(maxUnavailable, "maxUnavailable");
        if (maxUnavailable.isNegative()) {
            throw new IllegalArgumentException("the tolerance must not be negative: " + maxUnavailable);
        }
        this.maxUnavailableMs = maxUnavailable.toMillis();
        this.clockMs = Objects.requireNonNull(clockMs, "clockMs");
    }

    /**
     * Passes {@code availability} through, except a soft failure that continues a run of soft
     * failures longer than the tolerance: that becomes a hard failure saying how long it lasted.
     * An available answer ends the run; a hard failure passes and does not end it.
     */
    public SnapshotAvailability check(SnapshotAvailability availability) {
        switch (availability.kind()) {
            case AVAILABLE -> {
                unavailableSinceMs = -1;
                return availability;
            }
            case HARD_FAILURE -> {
                return availability;
            }
            default -> {
                long now = clockMs.getAsLong();
                if (unavailableSinceMs < 0) {
                    unavailableSinceMs = now;
                }
                long unavailableMs = now - unavailableSinceMs;
                if (unavailableMs > maxUnavailableMs) {
                    return SnapshotAvailability.hardFailure("unavailable for " + unavailableMs + " ms, longer than the"
                            + " " + maxUnavailableMs + " ms it may be: " + availability.message());
                }
                return availability;
            }
        }
    }
}
