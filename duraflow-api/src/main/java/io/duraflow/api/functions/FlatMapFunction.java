package io.duraflow.api.functions;

/** Transforms one record into zero or more records. */
@FunctionalInterface
public interface FlatMapFunction<I, O> {
    void flatMap(I value, Collector<O> out) throws Exception;
}
