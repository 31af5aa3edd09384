package io.duraflow.api.state;

import java.util.Map;

/** A map for the current key. Iteration order is unspecified. */
public interface MapState<K, V> {
    /** The value of {@code key}, {@code null} when absent. */
    V get(K key);

    void put(K key, V value);

    void putAll(Map<K, V> entries);

    void remove(K key);

    boolean contains(K key);

    Iterable<Map.Entry<K, V>> entries();

    Iterable<K> keys();

    Iterable<V> values();

    boolean isEmpty();

    void clear();
}
