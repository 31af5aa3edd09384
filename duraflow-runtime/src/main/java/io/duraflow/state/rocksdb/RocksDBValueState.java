package io.duraflow.state.rocksdb;

import io.duraflow.api.state.ValueState;
import io.duraflow.api.types.DataReader;
import io.duraflow.api.types.DataWriter;
import io.duraflow.api.types.TypeSerializer;

/**
 * A value per key: one entry {@code kg | key -> value}; a read or write of a cached value is a hash
 * lookup, otherwise one get or put ({@link StateStore}).
 */
final class RocksDBValueState<K, T> implements ValueState<T> {
    private final RocksDBKeyedStateBackend<K> backend;
    private final StateStore store;
    private final int column;
    private final TypeSerializer<T> serializer;

    RocksDBValueState(RocksDBKeyedStateBackend<K> backend, StateStore store, int column, TypeSerializer<T> serializer) {
        this.backend = backend;
        this.store = store;
        this.column = column;
        this.serializer = serializer;
    }

    @Override
    public T value() {
        backend.requireCurrentKey();
        DataReader in = store.read(column, backend.keyBuffer(), backend.keyLength());
        return in == null ? null : serializer.read(in);
    }

    @Override
    public void update(T value) {
        if (value == null) {
            clear();
            return;
        }
        backend.requireCurrentKey();
        DataWriter out = backend.valueWriter();
        serializer.write(value, out);
        store.put(column, backend.keyBuffer(), backend.keyLength(), out.buffer(), out.position());
    }

    @Override
    public void clear() {
        backend.requireCurrentKey();
        store.delete(column, backend.keyBuffer(), backend.keyLength());
    }
}
