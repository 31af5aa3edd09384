package io.duraflow.state.heap;

import io.duraflow.api.state.MapState;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;

/**
 * A map per key, kept as a {@link HashMap} that is copied before it is changed while a snapshot
 * holds it ({@link StateTable#writableContainer}). An empty map is removed, so {@link #isEmpty()} and "no entry" are the same.
 */
final class HeapMapState<K, MK, MV> implements MapState<MK, MV> {
    private final HeapKeyedStateBackend<K> backend;
    private final StateTable<K, HashMap<MK, MV>> table;

    HeapMapState(HeapKeyedStateBackend<K> backend, StateTable<K, HashMap<MK, MV>> table) {
        this.backend = backend;
        this.table = table;
    }

    /** The current key's map, or an empty one; read only (callers never change it). */
    private Map<MK, MV> current() {
        HashMap<MK, MV> map = table.get(backend.requireCurrentKey(), backend.currentKeyGroup());
        return map == null ? Map.of() : map;
    }

    /** {@link #current()} for the iterators handed out, which must not change the map. */
    private Map<MK, MV> currentReadOnly() {
        return Collections.unmodifiableMap(current());
    }

    private HashMap<MK, MV> writable() {
        return table.writableContainer(backend.requireCurrentKey(), backend.currentKeyGroup(), Containers.EpochMap::new);
    }

    @Override
    public MV get(MK key) {
        return current().get(key);
    }

    @Override
    public void put(MK key, MV value) {
        java.util.Objects.requireNonNull(key, "map state key");
        java.util.Objects.requireNonNull(value, "map state value (use remove)");
        writable().put(key, value);
    }

    @Override
    public void putAll(Map<MK, MV> entries) {
        if (entries.isEmpty()) {
            return;
        }
        for (Map.Entry<MK, MV> entry : entries.entrySet()) {
            put(entry.getKey(), entry.getValue());
        }
    }

    @Override
    public void remove(MK key) {
        if (!current().containsKey(key)) {
            return;
        }
        HashMap<MK, MV> map = writable();
        map.remove(key);
        if (map.isEmpty()) {
            clear();
        }
    }

    @Override
    public boolean contains(MK key) {
        return current().containsKey(key);
    }

    @Override
    public Iterable<Map.Entry<MK, MV>> entries() {
        return currentReadOnly().entrySet();
    }

    @Override
    public Iterable<MK> keys() {
        return currentReadOnly().keySet();
    }

    @Override
    public Iterable<MV> values() {
        return currentReadOnly().values();
    }

    @Override
    public boolean isEmpty() {
        return current().isEmpty();
    }

    @Override
    public void clear() {
        table.remove(backend.requireCurrentKey(), backend.currentKeyGroup());
    }
}
