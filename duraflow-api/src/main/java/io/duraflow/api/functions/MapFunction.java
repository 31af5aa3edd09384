package io.duraflow.api.functions;

/** Transforms one record into exactly one record. */
@FunctionalInterface
public interface MapFunction<I, O> {
    O map(I value) throws Exception;
}
