package io.duraflow.state.rocksdb;

import java.util.Arrays;
import java.util.Comparator;

/**
 * A bounded write-back cache of serialized state values in front of a backend's database (CLOCK
 * eviction, open addressing). Not thread-safe: the task thread only. Its invariants, bound and
 * layout: see docs/design/state-backends.md#writebackcache.
 */
final class WriteBackCache {
    /** Where dirty entries go: the database underneath. */
    interface WriteBack {
        /** Writes {@code value} under {@code key} in {@code column}, or deletes the key when {@code value} is null. */
        void write(int column, byte[] key, byte[] value);

        /** What {@link #write} was given since the last commit must be in the database when this returns. */
        void commit();
    }

    /**
     * Unsigned byte order of keys, RocksDB's: a flush writes a column's dirty values in it. The first
     * 16 bytes compare as two longs (cheap, and state keys are rarely longer); only ties compare the
     * arrays.
     */
    private static final Comparator<Entry> KEY_ORDER = (a, b) -> {
        int order = Long.compare(a.order0, b.order0);
        if (order == 0) {
            order = Long.compare(a.order1, b.order1);
        }
        return order != 0 ? order : Arrays.compareUnsigned(a.key, b.key);
    };

    /** Estimated heap per entry besides its key and value: the entry object, two array headers, table and list slots. */
    static final int ENTRY_OVERHEAD_BYTES = 96;

    private static final class Entry {
        final int column;
        final int hash;
        final byte[] key;
        /** Bytes [0, 8) and [8, 16) of the key, big-endian, zero-padded, sign bit flipped: signed order is byte order. */
        final long order0;
        final long order1;
        /** The value's bytes, or null: the key has no value. */
        byte[] value;
        boolean dirty;
        boolean referenced;

        Entry(int column, int hash, byte[] key) {
            this.column = column;
            this.hash = hash;
            this.key = key;
            this.order0 = orderBytes(key, 0);
            this.order1 = orderBytes(key, 8);
        }

        private static long orderBytes(byte[] key, int from) {
            long bytes = 0;
            for (int i = from; i < from + 8; i++) {
                bytes = (bytes << 8) | (i < key.length ? key[i] & 0xff : 0);
            }
            return bytes ^ Long.MIN_VALUE;
        }
    }

    /** The entries of a column that became dirty since its last flush; some may be clean or gone again. */
    private static final class DirtyList {
        Entry[] entries = new Entry[16];
        int length;
        /** How many entries of the column are dirty now. */
        int dirty;

        void add(Entry entry) {
            if (length == entries.length) {
                compactOrGrow();
            }
            entries[length++] = entry;
        }

        private void compactOrGrow() {
            if (length > 2 * dirty + 16) {
                int kept = 0;
                for (int i = 0; i < length; i++) {
                    if (entries[i].dirty) {
                        entries[kept++] = entries[i];
                    }
                }
                Arrays.fill(entries, kept, length, null);
                length = kept;
            } else {
                entries = Arrays.copyOf(entries, 2 * entries.length);
            }
        }

        void clear() {
            Arrays.fill(entries, 0, length, null);
            length = 0;
            dirty = 0;
        }
    }

    private final long maxBytes;
    private final long maxEntryBytes;
    private final WriteBack writeBack;
    private DirtyList[] columns = new DirtyList[0];
    private Entry[] table = new Entry[64];
    private int size;
    private long bytes;
    private int hand;
    private long evictions;
    private long writtenBack;

    /** @param maxBytes the bound, at least 64 KiB */
    WriteBackCache(long maxBytes, WriteBack writeBack) {
        if (maxBytes < 64 * 1024) {
            throw new IllegalArgumentException("a write-back cache needs at least 64 KiB, not " + maxBytes + " bytes");
        }
        this.maxBytes = maxBytes;
        this.maxEntryBytes = maxBytes / 16;
        this.writeBack = writeBack;
    }

    /** Adds a column (a state's column family); its number is what the other methods take. */
    int addColumn() {
        columns = Arrays.copyOf(columns, columns.length + 1);
        columns[columns.length - 1] = new DirtyList();
        return columns.length - 1;
    }

    static long entryBytes(int keyLength, int valueLength) {
        return ENTRY_OVERHEAD_BYTES + keyLength + (long) valueLength;
    }

    // ---- lookups ------------------------------------------------------------------------------

    /** Whether the cache holds {@code key[0, keyLength)} of {@code column} (with a value or as absent). */
    boolean contains(int column, byte[] key, int keyLength) {
        return find(column, key, keyLength) != null;
    }

    /**
     * The cached value of {@code key[0, keyLength)}: its bytes (not to be changed), {@link #ABSENT}
     * when the key is known to have no value, or null when the cache does not hold the key.
     */
    byte[] get(int column, byte[] key, int keyLength) {
        Entry entry = find(column, key, keyLength);
        if (entry == null) {
            return null;
        }
        entry.referenced = true;
        return entry.value == null ? ABSENT : entry.value;
    }

    /** What {@link #get} returns for a key known to have no value. */
    static final byte[] ABSENT = new byte[0];

    private Entry find(int column, byte[] key, int keyLength) {
        int hash = hash(column, key, keyLength);
        Entry[] t = table;
        int mask = t.length - 1;
        for (int slot = hash & mask; ; slot = (slot + 1) & mask) {
            Entry entry = t[slot];
            if (entry == null) {
                return null;
            }
            if (entry.hash == hash && entry.column == column
                    && Arrays.equals(entry.key, 0, entry.key.length, key, 0, keyLength)) {
                return entry;
            }
        }
    }

    // ---- changes ------------------------------------------------------------------------------

    /**
     * Caches what the database holds for a key the cache does not hold (after a read that missed):
     * {@code value}, or null for none. Nothing when the entry would be too large.
     */
    void putClean(int column, byte[] key, int keyLength, byte[] value, int valueLength) {
        if (entryBytes(keyLength, value == null ? 0 : valueLength) > maxEntryBytes) {
            return;
        }
        Entry entry = entry(column, key, keyLength);
        assert !entry.dirty : "putClean over a dirty entry";
        store(entry, value == null ? null : Arrays.copyOf(value, valueLength));
        evictIfFull();
    }

    /**
     * Writes {@code value[0, valueLength)} (null: deletes the key) into the cache, dirty. False when
     * the entry would be too large: then the cache no longer holds the key and the caller writes the
     * database itself.
     */
    boolean put(int column, byte[] key, int keyLength, byte[] value, int valueLength) {
        if (entryBytes(keyLength, value == null ? 0 : valueLength) > maxEntryBytes) {
            remove(column, key, keyLength);
            return false;
        }
        Entry entry = entry(column, key, keyLength);
        store(entry, value == null ? null : Arrays.copyOf(value, valueLength));
        markDirty(entry);
        evictIfFull();
        return true;
    }

    /**
     * Appends {@code bytes[0, length)} to the cached value of a key (absent counts as empty), dirty.
     * False when the cache does not hold the key, or the value would grow too large (then a dirty
     * value is written back and the key dropped first): the caller appends in the database.
     */
    boolean append(int column, byte[] key, int keyLength, byte[] bytes, int length) {
        Entry entry = find(column, key, keyLength);
        if (entry == null) {
            return false;
        }
        int oldLength = entry.value == null ? 0 : entry.value.length;
        if (entryBytes(keyLength, oldLength + length) > maxEntryBytes) {
            if (entry.dirty) {
                writeBack.write(column, entry.key, entry.value);
                writeBack.commit();
                writtenBack++;
            }
            removeEntry(entry);
            return false;
        }
        byte[] value = entry.value == null ? new byte[length] : Arrays.copyOf(entry.value, oldLength + length);
        System.arraycopy(bytes, 0, value, oldLength, length);
        store(entry, value);
        markDirty(entry);
        evictIfFull();
        return true;
    }

    /** Drops a key without writing it back (its value is superseded or already in the database). */
    void remove(int column, byte[] key, int keyLength) {
        Entry entry = find(column, key, keyLength);
        if (entry != null) {
            removeEntry(entry);
        }
    }

    /** The entry of a key, inserted (absent, clean) if the cache did not hold it. */
    private Entry entry(int column, byte[] key, int keyLength) {
        int hash = hash(column, key, keyLength);
        int mask = table.length - 1;
        int slot = hash & mask;
        for (Entry entry = table[slot]; entry != null; entry = table[slot]) {
            if (entry.hash == hash && entry.column == column
                    && Arrays.equals(entry.key, 0, entry.key.length, key, 0, keyLength)) {
                entry.referenced = true;
                return entry;
            }
            slot = (slot + 1) & mask;
        }
        Entry entry = new Entry(column, hash, Arrays.copyOf(key, keyLength));
        entry.referenced = true;
        table[slot] = entry;
        size++;
        bytes += entryBytes(keyLength, 0);
        if (2 * size > table.length) {
            resize(2 * table.length);
        }
        return entry;
    }

    private void store(Entry entry, byte[] value) {
        bytes += (value == null ? 0 : value.length) - (entry.value == null ? 0 : entry.value.length);
        entry.value = value;
    }

    private void markDirty(Entry entry) {
        if (!entry.dirty) {
            entry.dirty = true;
            DirtyList list = columns[entry.column];
            list.dirty++;
            list.add(entry);
        }
    }

    private void markClean(Entry entry) {
        if (entry.dirty) {
            entry.dirty = false;
            columns[entry.column].dirty--;
        }
    }

    // ---- write-back ---------------------------------------------------------------------------

    /** Writes every dirty entry back (they stay cached, clean), each column's in key order; one commit. */
    void flush() {
        boolean wrote = false;
        for (int column = 0; column < columns.length; column++) {
            wrote |= writeDirty(column);
        }
        if (wrote) {
            writeBack.commit();
        }
    }

    /** Writes the dirty entries of one column back, so that the database holds all of it (before iterating it). */
    void flush(int column) {
        if (writeDirty(column)) {
            writeBack.commit();
        }
    }

    private boolean writeDirty(int column) {
        DirtyList list = columns[column];
        if (list.dirty == 0) {
            list.clear();
            return false;
        }
        Arrays.sort(list.entries, 0, list.length, KEY_ORDER);
        for (int i = 0; i < list.length; i++) {
            Entry entry = list.entries[i];
            if (entry.dirty) {
                writeBack.write(column, entry.key, entry.value);
                entry.dirty = false;
                writtenBack++;
            }
        }
        list.clear();
        return true;
    }

    /** Drops every entry without writing anything back (the database is going away). */
    void clear() {
        Arrays.fill(table, null);
        for (DirtyList list : columns) {
            list.clear();
        }
        size = 0;
        bytes = 0;
        hand = 0;
    }

    private void evictIfFull() {
        if (bytes <= maxBytes) {
            return;
        }
        long target = maxBytes - maxBytes / 16;
        boolean wrote = false;
        while (bytes > target) {
            Entry entry = table[hand];
            if (entry == null) {
                hand = (hand + 1) & (table.length - 1);
            } else if (entry.referenced) {
                entry.referenced = false;
                hand = (hand + 1) & (table.length - 1);
            } else {
                if (entry.dirty) {
                    writeBack.write(entry.column, entry.key, entry.value);
                    writtenBack++;
                    wrote = true;
                }
                removeAt(hand);
                evictions++;
                // removeAt may have shifted the next entry of the run into this slot: look at it again.
            }
        }
        if (wrote) {
            writeBack.commit();
        }
    }

    private void removeEntry(Entry entry) {
        int mask = table.length - 1;
        int slot = entry.hash & mask;
        while (table[slot] != entry) {
            slot = (slot + 1) & mask;
        }
        removeAt(slot);
    }

    /** Removes the entry in {@code slot}, then shifts back the entries of the run after it that may move (no tombstones). */
    private void removeAt(int slot) {
        Entry removed = table[slot];
        markClean(removed);
        bytes -= entryBytes(removed.key.length, removed.value == null ? 0 : removed.value.length);
        size--;
        int mask = table.length - 1;
        int hole = slot;
        for (int next = (hole + 1) & mask; table[next] != null; next = (next + 1) & mask) {
            int home = table[next].hash & mask;
            // The entry at next may fill the hole if its home is not cyclically within (hole, next].
            boolean stays = hole <= next ? (hole < home && home <= next) : (hole < home || home <= next);
            if (!stays) {
                table[hole] = table[next];
                hole = next;
            }
        }
        table[hole] = null;
    }

    private void resize(int capacity) {
        Entry[] old = table;
        table = new Entry[capacity];
        int mask = capacity - 1;
        for (Entry entry : old) {
            if (entry != null) {
                int slot = entry.hash & mask;
                while (table[slot] != null) {
                    slot = (slot + 1) & mask;
                }
                table[slot] = entry;
            }
        }
        hand = 0;
    }

    private static int hash(int column, byte[] key, int keyLength) {
        int h = column * 0x9E3779B9;
        for (int i = 0; i < keyLength; i++) {
            h = 31 * h + key[i];
        }
        // Murmur3's finalizer: linear probing needs the low bits to depend on every byte.
        h ^= h >>> 16;
        h *= 0x85EBCA6B;
        h ^= h >>> 13;
        h *= 0xC2B2AE35;
        return h ^ (h >>> 16);
    }

    // ---- figures (tests, logs) ------------------------------------------------------------------

    /** {@link #get} without marking the entry used (tests). */
    byte[] peek(int column, byte[] key, int keyLength) {
        Entry entry = find(column, key, keyLength);
        return entry == null ? null : entry.value == null ? ABSENT : entry.value;
    }

    /** Whether the cache holds the key dirty (tests). */
    boolean isDirty(int column, byte[] key, int keyLength) {
        Entry entry = find(column, key, keyLength);
        return entry != null && entry.dirty;
    }

    int size() {
        return size;
    }

    long bytes() {
        return bytes;
    }

    long maxBytes() {
        return maxBytes;
    }

    int dirtyCount() {
        int dirty = 0;
        for (DirtyList list : columns) {
            dirty += list.dirty;
        }
        return dirty;
    }

    long evictions() {
        return evictions;
    }

    long writtenBack() {
        return writtenBack;
    }
}
