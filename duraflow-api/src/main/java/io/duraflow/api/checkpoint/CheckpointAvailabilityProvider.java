package io.duraflow.api.checkpoint;

/**
 * Something in a job that may refuse a checkpoint, asked before a checkpoint's snapshot: available,
 * a soft failure ("not now") or a hard one ("this is wrong"). Called on the thread that runs the
 * object, so it needs no synchronization; must not return null. See
 * docs/design/checkpoint-rejection.md#checkpointavailabilityprovider.
 */
@FunctionalInterface
public interface CheckpointAvailabilityProvider {
    /** Whether this can take its part of checkpoint {@code checkpointId} now; see {@link SnapshotAvailability}. */
    SnapshotAvailability isSnapshotAvailable(long checkpointId);

    /**
     * What {@code function} answers if it implements this interface, else available: how the
     * runtime asks a user function that may or may not be a provider.
     *
     * @throws IllegalStateException if the provider answered null
     */
    static SnapshotAvailability availabilityOf(Object function, long checkpointId) {
        if (!(function instanceof CheckpointAvailabilityProvider provider)) {
            return SnapshotAvailability.available();
        }
        SnapshotAvailability answer = provider.isSnapshotAvailable(checkpointId);
        if (answer == null) {
            throw new IllegalStateException(function.getClass().getName() + " answered null to isSnapshotAvailable("
                    + checkpointId + "); return SnapshotAvailability.available() instead");
        }
        return answer;
    }
}
