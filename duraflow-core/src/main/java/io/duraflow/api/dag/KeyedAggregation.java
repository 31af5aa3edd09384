package io.duraflow.api.dag;

/**
 * The one shape every keyed aggregation takes inside the engine: reduce and aggregate both
 * become this, so the combiner and the final aggregation have one implementation.
 */
public interface KeyedAggregation<IN, K, ACC, OUT> {
    ACC first(IN value) throws Exception;

    ACC add(ACC accumulator, IN value) throws Exception;

    ACC merge(ACC left, ACC right) throws Exception;

    OUT result(K key, ACC accumulator) throws Exception;
}
