package io.duraflow.api.functions;

/**
 * An aggregation with an intermediate accumulator. Duraflow pre-aggregates on the producer side
 * (combining) and merges the partial accumulators after the exchange, so {@link #merge} must be
 * associative and commutative.
 */
public interface AggregateFunction<IN, ACC, OUT> {
    ACC createAccumulator();

    ACC add(ACC accumulator, IN value) throws Exception;

    ACC merge(ACC left, ACC right) throws Exception;

    OUT getResult(ACC accumulator) throws Exception;
}
