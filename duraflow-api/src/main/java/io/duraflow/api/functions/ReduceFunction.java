package io.duraflow.api.functions;

/** Combines two records with the same key into one. Must be associative and commutative. */
@FunctionalInterface
public interface ReduceFunction<T> {
    T reduce(T left, T right) throws Exception;
}
