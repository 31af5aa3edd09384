package io.duraflow.api.dag;

import io.duraflow.api.checkpoint.CheckpointAvailabilityProvider;
import io.duraflow.api.checkpoint.SnapshotAvailability;

/**
 * The one shape every keyed aggregation takes inside the engine: reduce and aggregate both
 * become this, so the combiner and the final aggregation have one implementation. Its checkpoint
 * availability is the user function's, if that is a {@link CheckpointAvailabilityProvider}.
 */
public interface KeyedAggregation<IN, K, ACC, OUT> extends CheckpointAvailabilityProvider {
    ACC first(IN value) throws Exception;

    ACC add(ACC accumulator, IN value) throws Exception;

    ACC merge(ACC left, ACC right) throws Exception;

    OUT result(K key, ACC accumulator) throws Exception;

    @Override
    default SnapshotAvailability isSnapshotAvailable(long checkpointId) {
        return SnapshotAvailability.available();
    }
}
