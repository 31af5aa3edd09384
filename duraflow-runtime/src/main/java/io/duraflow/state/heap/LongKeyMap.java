package io.duraflow.state.heap;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Arrays;
import java.util.ConcurrentModificationException;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;

/**
 * The map of one key group of a {@link StateTable} whose keys are {@code Long}s (the key type of
 * most keyed streams): open addressing with linear probing over a {@code long[]} of keys and an
 * {@code Object[]} of values, so that a lookup touches two arrays instead of a chain of {@code
 * HashMap} nodes and boxed keys (on the streaming hot path, each record's state lookup missed the
 * CPU caches several times per record). A slot is free when its value is {@code null}; state
 * tables never store {@code null} values (clearing removes the entry), and {@link #put} refuses
 * one. Removal shifts the following entries of the probe run back, so no tombstones accumulate.
 *
 * <p>{@link #copy} is what copy-on-write of a key group costs: two array clones plus the value
 * copier for mutable containers. Not thread-safe; like {@code HashMap}, several threads may read a
 * map that nobody changes (a frozen key group).
 */
final class LongKeyMap<V> extends AbstractMap<Long, V> {
    private static final int MIN_CAPACITY = 16;
    /** Grows at half full: short probe runs, and still only 16 bytes per slot. */
    private static final int MAX_LOAD_PERCENT = 50;
    /** Fibonacci hashing: spreads keys with regular low bits (sequential ids) over the table. */
    private static final long GOLDEN = 0x9E3779B97F4A7C15L;

    private long[] keys;
    private Object[] values;
    /** log2 of the capacity. */
    private int bits;
    private int size;
    /** Changes on every structural change, for iterators' fail-fast check. */
    private int modifications;
    /**
     * The slot the last {@link #getLong} found, tried first by {@link #putLong}: a value state
     * reads a key's value and then replaces it. Only a hint: put checks that the slot still holds
     * the key (a key is in one slot at most, and the arrays never shrink).
     */
    private int lastFound;

    LongKeyMap() {
        this(MIN_CAPACITY);
    }

    /** A map that holds {@code expectedSize} entries without growing. */
    LongKeyMap(int expectedSize) {
        int capacity = MIN_CAPACITY;
        while ((long) capacity * MAX_LOAD_PERCENT / 100 < expectedSize) {
            capacity <<= 1;
        }
        allocate(capacity);
    }

    private LongKeyMap(LongKeyMap<V> other) {
        this.keys = other.keys.clone();
        this.values = other.values.clone();
        this.bits = other.bits;
        this.size = other.size;
    }

    private void allocate(int capacity) {
        keys = new long[capacity];
        values = new Object[capacity];
        bits = Integer.numberOfTrailingZeros(capacity);
    }

    /** A copy holding the same values. */
    LongKeyMap<V> copy() {
        return new LongKeyMap<>(this);
    }

    private int slotOf(long key) {
        return (int) ((key * GOLDEN) >>> (64 - bits));
    }

    /** The slot holding {@code key}, or -1. */
    private int find(long key) {
        int mask = keys.length - 1;
        for (int slot = slotOf(key); ; slot = (slot + 1) & mask) {
            if (values[slot] == null) {
                return -1;
            }
            if (keys[slot] == key) {
                return slot;
            }
        }
    }

    /**
     * Loads what a lookup of {@code key} reads first, its home slot's key and value, and returns
     * the value there (any entry's, or null) for the caller to load its header in turn; see {@link
     * StateTable#prefetch}. The key is added to {@code sink[0]} so its load is not dropped.
     * Changes nothing.
     */
    Object touchHome(long key, long[] sink) {
        int slot = slotOf(key);
        sink[0] += keys[slot];
        return values[slot];
    }

    @SuppressWarnings("unchecked")
    V getLong(long key) {
        int slot = find(key);
        if (slot < 0) {
            return null;
        }
        lastFound = slot;
        return (V) values[slot];
    }

    @Override
    public V get(Object key) {
        return key instanceof Long k ? getLong(k) : null;
    }

    @Override
    public boolean containsKey(Object key) {
        return key instanceof Long k && find(k) >= 0;
    }

    @Override
    public V put(Long key, V value) {
        return putLong(key, value);
    }

    @SuppressWarnings("unchecked")
    V putLong(long key, V value) {
        Objects.requireNonNull(value, "a state table holds no null values");
        int found = lastFound;
        if (values[found] != null && keys[found] == key) {
            V previous = (V) values[found];
            values[found] = value;
            return previous;
        }
        int mask = keys.length - 1;
        int slot = slotOf(key);
        while (values[slot] != null) {
            if (keys[slot] == key) {
                V previous = (V) values[slot];
                values[slot] = value;
                return previous;
            }
            slot = (slot + 1) & mask;
        }
        keys[slot] = key;
        values[slot] = value;
        size++;
        modifications++;
        if ((long) size * 100 > (long) keys.length * MAX_LOAD_PERCENT) {
            grow();
        }
        return null;
    }

    @Override
    public V computeIfAbsent(Long key, Function<? super Long, ? extends V> mapping) {
        V value = getLong(key);
        if (value == null) {
            value = mapping.apply(key);
            if (value != null) {
                putLong(key, value);
            }
        }
        return value;
    }

    @Override
    public V remove(Object key) {
        if (!(key instanceof Long k)) {
            return null;
        }
        int slot = find(k);
        if (slot < 0) {
            return null;
        }
        @SuppressWarnings("unchecked")
        V previous = (V) values[slot];
        removeSlot(slot);
        return previous;
    }

    /**
     * Frees {@code slot} and moves back every later entry of its probe run that may not stay behind
     * the gap (its home slot is not cyclically in (gap, position]), so that lookups still find it.
     */
    private void removeSlot(int slot) {
        int mask = keys.length - 1;
        int gap = slot;
        for (int position = (gap + 1) & mask; values[position] != null; position = (position + 1) & mask) {
            int home = slotOf(keys[position]);
            boolean staysBehindGap = gap <= position ? gap < home && home <= position : gap < home || home <= position;
            if (!staysBehindGap) {
                keys[gap] = keys[position];
                values[gap] = values[position];
                gap = position;
            }
        }
        values[gap] = null;
        keys[gap] = 0;
        size--;
        modifications++;
    }

    @SuppressWarnings("unchecked")
    private void grow() {
        long[] oldKeys = keys;
        Object[] oldValues = values;
        allocate(oldKeys.length << 1);
        int mask = keys.length - 1;
        for (int i = 0; i < oldKeys.length; i++) {
            if (oldValues[i] != null) {
                int slot = slotOf(oldKeys[i]);
                while (values[slot] != null) {
                    slot = (slot + 1) & mask;
                }
                keys[slot] = oldKeys[i];
                values[slot] = oldValues[i];
            }
        }
    }

    /**
     * Writes the entries as {@link RegisteredState#writeBlock} does for any map with {@code
     * Types.LONG} keys: the count, then each key as a zig-zag var-long and its value, in slot order
     * (the order of {@link #entrySet()}), so the bytes are the same; the snapshot's path for
     * {@code Long} keys, which allocates nothing per entry.
     */
    @SuppressWarnings("unchecked")
    void writeEntries(StateCodec<V> codec, io.duraflow.api.types.DataWriter out) {
        out.writeVarInt(size);
        long[] keys = this.keys;
        Object[] values = this.values;
        for (int slot = 0; slot < values.length; slot++) {
            Object value = values[slot];
            if (value != null) {
                out.writeSignedVarLong(keys[slot]);
                codec.write((V) value, out);
            }
        }
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public boolean isEmpty() {
        return size == 0;
    }

    @Override
    public void clear() {
        Arrays.fill(values, null);
        Arrays.fill(keys, 0);
        size = 0;
        modifications++;
    }

    @Override
    public Set<Map.Entry<Long, V>> entrySet() {
        return new AbstractSet<>() {
            @Override
            public Iterator<Map.Entry<Long, V>> iterator() {
                return new Entries();
            }

            @Override
            public int size() {
                return size;
            }
        };
    }

    /** Iterates the slots in order; {@code remove()} is not supported (a removal shifts entries back). */
    private final class Entries implements Iterator<Map.Entry<Long, V>> {
        private final int expectedModifications = modifications;
        private int next = advance(0);

        private int advance(int from) {
            int slot = from;
            while (slot < values.length && values[slot] == null) {
                slot++;
            }
            return slot;
        }

        @Override
        public boolean hasNext() {
            return next < values.length;
        }

        @Override
        @SuppressWarnings("unchecked")
        public Map.Entry<Long, V> next() {
            if (modifications != expectedModifications) {
                throw new ConcurrentModificationException();
            }
            if (next >= values.length) {
                throw new NoSuchElementException();
            }
            Map.Entry<Long, V> entry = new SimpleImmutableEntry<>(keys[next], (V) values[next]);
            next = advance(next + 1);
            return entry;
        }
    }
}
