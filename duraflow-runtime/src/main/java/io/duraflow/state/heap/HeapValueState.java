package io.duraflow.state.heap;

import io.duraflow.api.state.ValueState;

/** A value per key; see {@link StateTable} for why a stored value must not be mutated in place. */
final class HeapValueState<K, T> implements ValueState<T> {
    private final HeapKeyedStateBackend<K> backend;
    private final StateTable<K, T> table;
    /** The keys are Longs: the table is read and written with the backend's unboxed current key. */
    private final boolean longKeys;

    HeapValueState(HeapKeyedStateBackend<K> backend, StateTable<K, T> table) {
        this.backend = backend;
        this.table = table;
        this.longKeys = table.longKeys();
    }

    @Override
    public T value() {
        if (longKeys) {
            backend.requireCurrentKey();
            return table.getLong(backend.currentLongKey(), backend.currentKeyGroup());
        }
        return table.get(backend.requireCurrentKey(), backend.currentKeyGroup());
    }

    @Override
    public void update(T value) {
        if (value == null) {
            clear();
            return;
        }
        if (longKeys) {
            backend.requireCurrentKey();
            table.putLong(backend.currentLongKey(), backend.currentKeyGroup(), value);
            return;
        }
        table.writable(backend.currentKeyGroup()).put(backend.requireCurrentKey(), value);
    }

    @Override
    public void clear() {
        table.remove(backend.requireCurrentKey(), backend.currentKeyGroup());
    }
}
