package io.duraflow.state.rocksdb;

import io.duraflow.api.state.MapState;
import io.duraflow.api.types.DataReader;
import io.duraflow.api.types.DataWriter;
import io.duraflow.api.types.TypeSerializer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.rocksdb.RocksIterator;

/**
 * A map per key: one entry {@code kg | key | mapKey -> mapValue} per map entry, so a point read or
 * write touches one entry (cached like a value, {@link StateStore}); iterating reads the key's
 * contiguous range of the database, after the column's cached writes went into it.
 */
final class RocksDBMapState<K, MK, MV> implements MapState<MK, MV> {
    private final RocksDBKeyedStateBackend<K> backend;
    private final StateStore store;
    private final int column;
    private final TypeSerializer<MK> keySerializer;
    private final TypeSerializer<MV> valueSerializer;
    private final DataWriter entryKey = new DataWriter(64);

    RocksDBMapState(RocksDBKeyedStateBackend<K> backend, StateStore store, int column,
            TypeSerializer<MK> keySerializer, TypeSerializer<MV> valueSerializer) {
        this.backend = backend;
        this.store = store;
        this.column = column;
        this.keySerializer = keySerializer;
        this.valueSerializer = valueSerializer;
    }

    /** {@code kg | key | mapKey} in {@link #entryKey}. */
    private void entryKey(MK mapKey) {
        backend.requireCurrentKey();
        entryKey.reset();
        entryKey.writeBytes(backend.keyBuffer(), 0, backend.keyLength());
        keySerializer.write(mapKey, entryKey);
    }

    @Override
    public MV get(MK key) {
        entryKey(key);
        DataReader in = store.read(column, entryKey.buffer(), entryKey.position());
        return in == null ? null : valueSerializer.read(in);
    }

    @Override
    public void put(MK key, MV value) {
        Objects.requireNonNull(key, "map state key");
        Objects.requireNonNull(value, "map state value (use remove)");
        entryKey(key);
        DataWriter out = backend.valueWriter();
        valueSerializer.write(value, out);
        store.put(column, entryKey.buffer(), entryKey.position(), out.buffer(), out.position());
    }

    @Override
    public void putAll(Map<MK, MV> entries) {
        for (Map.Entry<MK, MV> entry : entries.entrySet()) {
            put(entry.getKey(), entry.getValue());
        }
    }

    @Override
    public void remove(MK key) {
        entryKey(key);
        store.delete(column, entryKey.buffer(), entryKey.position());
    }

    @Override
    public boolean contains(MK key) {
        entryKey(key);
        return store.contains(column, entryKey.buffer(), entryKey.position());
    }

    @Override
    public Iterable<Map.Entry<MK, MV>> entries() {
        return Collections.unmodifiableMap(read(Integer.MAX_VALUE)).entrySet();
    }

    @Override
    public Iterable<MK> keys() {
        return Collections.unmodifiableMap(read(Integer.MAX_VALUE)).keySet();
    }

    @Override
    public Iterable<MV> values() {
        return Collections.unmodifiableCollection(read(Integer.MAX_VALUE).values());
    }

    @Override
    public boolean isEmpty() {
        return read(1).isEmpty();
    }

    @Override
    public void clear() {
        backend.requireCurrentKey();
        byte[] prefix = java.util.Arrays.copyOf(backend.keyBuffer(), backend.keyLength());
        List<byte[]> keys = new ArrayList<>();
        try (RocksIterator iterator = store.iterator(column)) {
            for (iterator.seek(prefix); iterator.isValid(); iterator.next()) {
                byte[] key = iterator.key();
                if (!KeyLayout.startsWith(key, prefix, prefix.length)) {
                    break;
                }
                keys.add(key);
            }
        }
        store.deleteAll(column, keys);
    }

    /** Up to {@code limit} entries of the current key, a copy (the task may change the map while iterating). */
    private Map<MK, MV> read(int limit) {
        backend.requireCurrentKey();
        int prefixLength = backend.keyLength();
        byte[] prefix = java.util.Arrays.copyOf(backend.keyBuffer(), prefixLength);
        Map<MK, MV> entries = new LinkedHashMap<>();
        DataReader in = new DataReader();
        try (RocksIterator iterator = store.iterator(column)) {
            for (iterator.seek(prefix); iterator.isValid() && entries.size() < limit; iterator.next()) {
                byte[] key = iterator.key();
                if (!KeyLayout.startsWith(key, prefix, prefixLength)) {
                    break;
                }
                in.reset(key, prefixLength, key.length - prefixLength);
                MK mapKey = keySerializer.read(in);
                byte[] value = iterator.value();
                in.reset(value, 0, value.length);
                entries.put(mapKey, valueSerializer.read(in));
            }
        }
        return entries;
    }
}
