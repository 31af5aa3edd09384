package io.duraflow.api.functions;

/** Keeps the records for which it returns true. */
@FunctionalInterface
public interface FilterFunction<T> {
    boolean filter(T value) throws Exception;
}
