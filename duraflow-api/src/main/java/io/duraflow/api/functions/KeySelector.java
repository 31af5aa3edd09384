package io.duraflow.api.functions;

/**
 * Extracts the key of a record. Keys are compared by their serialized bytes, so two keys are
 * equal exactly when their serializer writes the same bytes; equals/hashCode of the key class
 * must agree with that (true for strings, boxed numbers and records of those).
 */
@FunctionalInterface
public interface KeySelector<T, K> {
    K getKey(T value) throws Exception;
}
