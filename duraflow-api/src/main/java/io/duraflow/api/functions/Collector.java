package io.duraflow.api.functions;

/** Receives the records an operator emits. */
@FunctionalInterface
public interface Collector<T> {
    void collect(T record);
}
