package io.duraflow.state.heap;

import io.duraflow.api.state.ValueState;

/** A value per key; see {@link StateTable} for why a stored value must not be mutated in place. */
final class HeapValueState<K, T> implements ValueState<T> {
    private final HeapKeyedStateBackend<K> backend;
    private final StateTable<K, T> table;

    HeapValueState(HeapKeyedStateBackend<K> backend, StateTable<K, T> table) {
        this.backend = backend;
        this.table = table;
    }

    @Override
    public T value() {
        return table.get(backend.requireCurrentKey(), backend.currentKeyGroup());
    }

    @Override
    public void update(T value) {
        if (value == null) {
            clear();
            return;
        }
        table.writable(backend.currentKeyGroup()).put(backend.requireCurrentKey(), value);
    }

    @Override
    public void clear() {
        table.remove(backend.requireCurrentKey(), backend.currentKeyGroup());
    }
}
