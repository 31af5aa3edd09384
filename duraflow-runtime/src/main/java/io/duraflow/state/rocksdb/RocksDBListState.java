package io.duraflow.state.rocksdb;

import io.duraflow.api.state.ListState;
import io.duraflow.api.types.DataReader;
import io.duraflow.api.types.DataWriter;
import io.duraflow.api.types.TypeSerializer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * A list per key: one entry {@code kg | key -> n x {var-int length, element}}. Adding is a merge
 * (RocksDB appends the bytes, no read) unless the write-back cache holds the list, which then appends
 * to it; reading parses the whole list.
 */
final class RocksDBListState<K, T> implements ListState<T> {
    private final RocksDBKeyedStateBackend<K> backend;
    private final StateStore store;
    private final int column;
    private final TypeSerializer<T> serializer;
    private final DataWriter element = new DataWriter(64);

    RocksDBListState(RocksDBKeyedStateBackend<K> backend, StateStore store, int column, TypeSerializer<T> serializer) {
        this.backend = backend;
        this.store = store;
        this.column = column;
        this.serializer = serializer;
    }

    @Override
    public Iterable<T> get() {
        backend.requireCurrentKey();
        DataReader in = store.read(column, backend.keyBuffer(), backend.keyLength());
        if (in == null) {
            return List.of();
        }
        List<T> values = new ArrayList<>();
        while (in.hasRemaining()) {
            int size = in.readVarInt();
            int end = in.position() + size;
            values.add(serializer.read(in));
            if (in.position() != end) {
                throw new IllegalStateException(backend.description() + ": a list element of " + size
                        + " bytes was read as " + (in.position() - end + size) + " bytes; the element serializer "
                        + serializer.description() + " does not read what it writes");
            }
        }
        return Collections.unmodifiableList(values);
    }

    @Override
    public void add(T value) {
        Objects.requireNonNull(value, "a list state holds no null elements");
        backend.requireCurrentKey();
        DataWriter out = backend.valueWriter();
        append(value, out);
        store.merge(column, backend.keyBuffer(), backend.keyLength(), out.buffer(), out.position());
    }

    @Override
    public void addAll(List<T> values) {
        if (values.isEmpty()) {
            return;
        }
        for (T value : values) {
            Objects.requireNonNull(value, "a list state holds no null elements");
        }
        backend.requireCurrentKey();
        DataWriter out = backend.valueWriter();
        for (T value : values) {
            append(value, out);
        }
        store.merge(column, backend.keyBuffer(), backend.keyLength(), out.buffer(), out.position());
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
        backend.requireCurrentKey();
        DataWriter out = backend.valueWriter();
        for (T value : values) {
            append(value, out);
        }
        store.put(column, backend.keyBuffer(), backend.keyLength(), out.buffer(), out.position());
    }

    @Override
    public void clear() {
        backend.requireCurrentKey();
        store.delete(column, backend.keyBuffer(), backend.keyLength());
    }

    private void append(T value, DataWriter out) {
        element.reset();
        serializer.write(value, element);
        out.writeVarInt(element.position());
        out.writeBytes(element.buffer(), 0, element.position());
    }
}
