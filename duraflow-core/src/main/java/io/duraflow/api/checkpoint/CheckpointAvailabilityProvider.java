package io.duraflow.api.checkpoint;

/**
 * Something in a job that may refuse a checkpoint (seed 002): before a checkpoint's snapshot, the
 * runtime asks every user object of the job that implements this: source readers, split
 * enumerators, sink writers, keyed process functions (which implement it with an "available"
 * default), and any other function that implements it, such as a {@code MapFunction}, a {@code
 * FilterFunction} or a {@code FlatMapFunction}:
 *
 * <pre>{@code
 * class Enrich implements MapFunction<Order, EnrichedOrder>, CheckpointAvailabilityProvider {
 *     public SnapshotAvailability isSnapshotAvailable(long checkpointId) {
 *         return cacheLoading ? SnapshotAvailability.softFailure("the lookup cache is loading")
 *                 : SnapshotAvailability.available();
 *     }
 *     ...
 * }
 * }</pre>
 *
 * Called on the thread that runs the object (a task's thread between two records; the JobManager's
 * main thread for an enumerator), so it needs no synchronization. It must not return null. When
 * several objects of one task answer, the strongest answer counts: a hard failure over a soft one
 * over available.
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
