package io.duraflow.state.heap;

import io.duraflow.api.state.ListState;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * A list per key, kept as an {@link ArrayList} that is copied before it is changed while a snapshot
 * holds it ({@link StateTable#writableContainer}).
 */
final class HeapListState<K, T> implements ListState<T> {
    private final HeapKeyedStateBackend<K> backend;
    private final StateTable<K, ArrayList<T>> table;

    HeapListState(HeapKeyedStateBackend<K> backend, StateTable<K, ArrayList<T>> table) {
        this.backend = backend;
        this.table = table;
    }

    @Override
    public Iterable<T> get() {
        ArrayList<T> list = table.get(backend.requireCurrentKey(), backend.currentKeyGroup());
        return list == null ? List.of() : Collections.unmodifiableList(list);
    }

    @Override
    public void add(T value) {
        Objects.requireNonNull(value, "a list state holds no null elements");
        table.writableContainer(backend.requireCurrentKey(), backend.currentKeyGroup(), Containers.EpochList::new)
                .add(value);
    }

    @Override
    public void addAll(List<T> values) {
        if (values.isEmpty()) {
            return;
        }
        for (T value : values) {
            Objects.requireNonNull(value, "a list state holds no null elements");
        }
        table.writableContainer(backend.requireCurrentKey(), backend.currentKeyGroup(), Containers.EpochList::new)
                .addAll(values);
    }

    @Override
    public void update(List<T> values) {
        if (values == null || values.isEmpty()) {
            clear();
            return;
        }
        for (T value : values) {
            Objects.requireNonNull(value, "a list state holds no null elements");
        }
        table.writable(backend.currentKeyGroup()).put(backend.requireCurrentKey(),
                new Containers.EpochList<>(table.epoch(), values));
    }

    @Override
    public void clear() {
        table.remove(backend.requireCurrentKey(), backend.currentKeyGroup());
    }
}
