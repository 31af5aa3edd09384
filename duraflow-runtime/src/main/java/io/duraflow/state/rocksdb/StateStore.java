package io.duraflow.state.rocksdb;

import io.duraflow.api.types.DataReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;

/**
 * The database as the state objects and the timers see it: reads, writes, merges and deletes
 * through the {@link WriteBackCache} for cached columns and straight to RocksDB for the others.
 * Task thread only. Its rules: see docs/design/state-backends.md#statestore.
 */
final class StateStore implements WriteBackCache.WriteBack {
    private static final int BATCH_BYTES = 1 << 20;

    private final String description;
    private final RocksDBInstance db;
    /** Null when the cache is off. */
    private final WriteBackCache cache;
    private ColumnFamilyHandle[] handles = new ColumnFamilyHandle[0];
    /** The cache's column number of each column, or -1 when the column is not cached. */
    private int[] cacheColumns = new int[0];
    /** The column family id of each cache column. */
    private int[] cacheColumnFamilyIds = new int[0];
    private final WriteBatchBuilder batch = new WriteBatchBuilder();
    private final DataReader reader = new DataReader();
    private byte[] readBuffer = new byte[256];

    /** @param cacheBytes the write-back cache's bound, 0 for none */
    StateStore(String description, RocksDBInstance db, long cacheBytes) {
        this.description = description;
        this.db = db;
        this.cache = cacheBytes > 0 ? new WriteBackCache(cacheBytes, this) : null;
    }

    /** Adds a column family; {@code cached} is false for columns that are iterated on their own (the timers). */
    int addColumn(ColumnFamilyHandle handle, boolean cached) {
        int column = handles.length;
        handles = Arrays.copyOf(handles, column + 1);
        cacheColumns = Arrays.copyOf(cacheColumns, column + 1);
        handles[column] = handle;
        cacheColumns[column] = cached && cache != null ? cache.addColumn() : -1;
        if (cacheColumns[column] >= 0) {
            cacheColumnFamilyIds = Arrays.copyOf(cacheColumnFamilyIds, cacheColumns[column] + 1);
            cacheColumnFamilyIds[cacheColumns[column]] = handle.getID();
        }
        return column;
    }

    /** A reader over the value of {@code key[0, keyLength)}, or null when it has none; valid until the next call. */
    DataReader read(int column, byte[] key, int keyLength) {
        int cached = cacheColumns[column];
        if (cached >= 0) {
            byte[] value = cache.get(cached, key, keyLength);
            if (value != null) {
                if (value == WriteBackCache.ABSENT) {
                    return null;
                }
                reader.reset(value, 0, value.length);
                return reader;
            }
        }
        int length = readDatabase(handles[column], key, keyLength);
        if (cached >= 0) {
            cache.putClean(cached, key, keyLength, length < 0 ? null : readBuffer, length);
        }
        if (length < 0) {
            return null;
        }
        reader.reset(readBuffer, 0, length);
        return reader;
    }

    /** Whether {@code key[0, keyLength)} has a value. */
    boolean contains(int column, byte[] key, int keyLength) {
        return read(column, key, keyLength) != null;
    }

    void put(int column, byte[] key, int keyLength, byte[] value, int valueLength) {
        int cached = cacheColumns[column];
        if (cached >= 0 && cache.put(cached, key, keyLength, value, valueLength)) {
            return;
        }
        try {
            db.db().put(handles[column], db.writeOptions, key, 0, keyLength, value, 0, valueLength);
        } catch (RocksDBException e) {
            throw failure("writing", e);
        }
    }

    void delete(int column, byte[] key, int keyLength) {
        int cached = cacheColumns[column];
        if (cached >= 0 && cache.put(cached, key, keyLength, null, 0)) {
            return;
        }
        try {
            db.db().delete(handles[column], db.writeOptions, key, 0, keyLength);
        } catch (RocksDBException e) {
            throw failure("deleting", e);
        }
    }

    /** Appends {@code bytes[0, length)} to the value of a key (list state). */
    void merge(int column, byte[] key, int keyLength, byte[] bytes, int length) {
        int cached = cacheColumns[column];
        if (cached >= 0 && cache.append(cached, key, keyLength, bytes, length)) {
            return;
        }
        try {
            db.db().merge(handles[column], db.writeOptions, key, 0, keyLength, bytes, 0, length);
        } catch (RocksDBException e) {
            throw failure("writing", e);
        }
    }

    /** An iterator over the column that sees every write: the column's dirty entries are written back first. */
    RocksIterator iterator(int column) {
        int cached = cacheColumns[column];
        if (cached >= 0) {
            cache.flush(cached);
        }
        return db.db().newIterator(handles[column], db.readOptions);
    }

    /**
     * Deletes keys found by an {@link #iterator} of the column (so the cache holds none of them dirty),
     * in the cache and in the database, in one batch.
     */
    void deleteAll(int column, Iterable<byte[]> keys) {
        int cached = cacheColumns[column];
        try (WriteBatch deletes = new WriteBatch()) {
            for (byte[] key : keys) {
                if (cached >= 0) {
                    cache.remove(cached, key, key.length);
                }
                deletes.delete(handles[column], key);
            }
            db.db().write(db.writeOptions, deletes);
        } catch (RocksDBException e) {
            throw failure("deleting", e);
        }
    }

    /** Writes every dirty cached value to the database: the synchronous part of a snapshot starts with it. */
    void flush() {
        if (cache != null) {
            cache.flush();
        }
    }

    /** The cache, or null when it is off (tests, logs). */
    WriteBackCache cache() {
        return cache;
    }

    /** Drops the cache without writing it back; the database is closed by its owner. */
    void close() {
        if (cache != null) {
            cache.clear();
        }
        batch.clear();
    }

    private int readDatabase(ColumnFamilyHandle handle, byte[] key, int keyLength) {
        try {
            int length = db.db().get(handle, db.readOptions, key, 0, keyLength, readBuffer, 0, readBuffer.length);
            if (length > readBuffer.length) {
                readBuffer = new byte[Math.max(length, 2 * readBuffer.length)];
                length = db.db().get(handle, db.readOptions, key, 0, keyLength, readBuffer, 0, readBuffer.length);
            }
            return length;
        } catch (RocksDBException e) {
            throw failure("reading", e);
        }
    }

    // ---- WriteBackCache.WriteBack ---------------------------------------------------------------

    @Override
    public void write(int cacheColumn, byte[] key, byte[] value) {
        int columnFamilyId = cacheColumnFamilyIds[cacheColumn];
        if (value == null) {
            batch.delete(columnFamilyId, key);
        } else {
            batch.put(columnFamilyId, key, value);
        }
        if (batch.sizeBytes() > BATCH_BYTES) {
            commit();
        }
    }
    @Override
    public void commit() {
        try {
            batch.writeTo(db.db(), db.writeOptions);
        } catch (RocksDBException e) {
            throw failure("writing back", e);
        }
    }

    UncheckedIOException failure(String what, RocksDBException e) {
        return new UncheckedIOException(new IOException(description + ": " + what + " keyed state in RocksDB ("
                + db.directory() + ") failed: " + e.getMessage(), e));
    }
}
