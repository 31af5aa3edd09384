package io.duraflow.state.rocksdb;

import io.duraflow.api.state.ValueState;
import io.duraflow.api.types.DataWriter;
import io.duraflow.api.types.TypeSerializer;
import org.rocksdb.ColumnFamilyHandle;

/** A value per key: one entry {@code kg | key -> value}; a read is one get, a write one put. */
final class RocksDBValueState<K, T> implements ValueState<T> {
    private final RocksDBKeyedStateBackend<K> backend;
    private final ColumnFamilyHandle column;
    private final TypeSerializer<T> serializer;

    RocksDBValueState(RocksDBKeyedStateBackend<K> backend, ColumnFamilyHandle column, TypeSerializer<T> serializer) {
        this.backend = backend;
        this.column = column;
        this.serializer = serializer;
    }

    @Override
    public T value() {
        backend.requireCurrentKey();
        int length = backend.get(column, backend.keyBuffer(), backend.keyLength());
        return length < 0 ? null : serializer.read(backend.reader(length));
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
        backend.put(column, backend.keyBuffer(), backend.keyLength(), out.buffer(), out.position());
    }

    @Override
    public void clear() {
        backend.requireCurrentKey();
        backend.delete(column, backend.keyBuffer(), backend.keyLength());
    }
}
