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
 * The map of one key group of a {@link StateTable} whose keys are objects other than {@code Long}
 * (strings, tuples): open addressing with linear probing over an {@code int[]} of the keys' hash
 * codes and one {@code Object[]} holding each slot's key and value side by side. A lookup reads
 * the hash array, then the slot's key and value from one cache line, then the key itself for
 * {@code equals}; where a {@code HashMap} reads its table and then a node, this layout lets {@link
 * #touchHome} load a whole batch of keys' slots before any of them is looked up (see {@link
 * StateTable#prefetch}), so their cache misses overlap.
 *
 * <p>A slot is free when its value is {@code null}; state tables never store {@code null} values,
 * and {@link #put} refuses one. Removal shifts the following entries of the probe run back, so no
 * tombstones accumulate. Not thread-safe; like {@code HashMap}, several threads may read a map
 * that nobody changes (a frozen key group). Keys must not change their hash code while in the map.
 */
final class HashKeyMap<K, V> extends AbstractMap<K, V> {
    private static final int MIN_CAPACITY = 16;
    /** Grows at half full: short probe runs. */
    private static final int MAX_LOAD_PERCENT = 50;
    /** Fibonacci hashing spreads hash codes whose low bits repeat (small integers, similar strings). */
    private static final int GOLDEN = 0x9E3779B9;

    private int[] hashes;
    /** Slot i's key at 2i, its value at 2i + 1. */
    private Object[] entries;
    /** log2 of the capacity. */
    private int bits;
    private int size;
    /** Changes on every structural change, for iterators' fail-fast check. */
    private int modifications;
    /**
     * The slot the last {@link #get} found, tried first by {@link #put}: a value state reads a
     * key's value and then replaces it. Only a hint: put checks that the slot still holds the key.
     */
    private int lastFound;

    HashKeyMap() {
        allocate(MIN_CAPACITY);
    }

    private HashKeyMap(HashKeyMap<K, V> other) {
        this.hashes = other.hashes.clone();
        this.entries = other.entries.clone();
        this.bits = other.bits;
        this.size = other.size;
    }

    private void allocate(int capacity) {
        hashes = new int[capacity];
        entries = new Object[capacity * 2];
        bits = Integer.numberOfTrailingZeros(capacity);
    }

    /** A copy holding the same keys and values. */
    HashKeyMap<K, V> copy() {
        return new HashKeyMap<>(this);
    }

    private int slotOf(int hash) {
        return (hash * GOLDEN) >>> (32 - bits);
    }

    /** The slot holding {@code key} (whose hash code is {@code hash}), or -1. */
    private int find(Object key, int hash) {
        int mask = hashes.length - 1;
        for (int slot = slotOf(hash); ; slot = (slot + 1) & mask) {
            if (entries[2 * slot + 1] == null) {
                return -1;
            }
            if (hashes[slot] == hash) {
                Object candidate = entries[2 * slot];
                if (candidate == key || candidate.equals(key)) {
                    return slot;
                }
            }
        }
    }

    /**
     * Loads what a lookup of a key whose hash code is {@code hash} reads first, its home slot's
     * hash, key and value, and returns the key there (any entry's, or null) for the caller to load
     * in turn; see {@link StateTable#prefetch}. The hash is added to {@code sink[0]} so its load is
     * not dropped. Changes nothing.
     */
    Object touchHome(int hash, long[] sink) {
        int slot = slotOf(hash);
        sink[0] += hashes[slot];
        return entries[2 * slot];
    }

    @Override
    @SuppressWarnings("unchecked")
    public V get(Object key) {
        if (key == null) {
            return null;
        }
        int slot = find(key, key.hashCode());
        if (slot < 0) {
            return null;
        }
        lastFound = slot;
        return (V) entries[2 * slot + 1];
    }

    @Override
    public boolean containsKey(Object key) {
        return key != null && find(key, key.hashCode()) >= 0;
    }

    @Override
    @SuppressWarnings("unchecked")
    public V put(K key, V value) {
        Objects.requireNonNull(key, "a state table holds no null keys");
        Objects.requireNonNull(value, "a state table holds no null values");
        int found = lastFound;
        Object atFound = entries[2 * found];
        if (atFound == key && entries[2 * found + 1] != null) {
            V previous = (V) entries[2 * found + 1];
            entries[2 * found + 1] = value;
            return previous;
        }
        int hash = key.hashCode();
        int mask = hashes.length - 1;
        int slot = slotOf(hash);
        while (entries[2 * slot + 1] != null) {
            if (hashes[slot] == hash) {
                Object candidate = entries[2 * slot];
                if (candidate == key || candidate.equals(key)) {
                    V previous = (V) entries[2 * slot + 1];
                    entries[2 * slot + 1] = value;
                    return previous;
                }
            }
            slot = (slot + 1) & mask;
        }
        hashes[slot] = hash;
        entries[2 * slot] = key;
        entries[2 * slot + 1] = value;
        size++;
        modifications++;
        if ((long) size * 100 > (long) hashes.length * MAX_LOAD_PERCENT) {
            grow();
        }
        return null;
    }

    @Override
    public V computeIfAbsent(K key, Function<? super K, ? extends V> mapping) {
        V value = get(key);
        if (value == null) {
            value = mapping.apply(key);
            if (value != null) {
                put(key, value);
            }
        }
        return value;
    }

    @Override
    public V remove(Object key) {
        if (key == null) {
            return null;
        }
        int slot = find(key, key.hashCode());
        if (slot < 0) {
            return null;
        }
        @SuppressWarnings("unchecked")
        V previous = (V) entries[2 * slot + 1];
        removeSlot(slot);
        return previous;
    }

    /**
     * Frees {@code slot} and moves back every later entry of its probe run that may not stay behind
     * the gap (its home slot is not cyclically in (gap, position]), so that lookups still find it.
     */
    private void removeSlot(int slot) {
        int mask = hashes.length - 1;
        int gap = slot;
        for (int position = (gap + 1) & mask; entries[2 * position + 1] != null; position = (position + 1) & mask) {
            int home = slotOf(hashes[position]);
            boolean staysBehindGap = gap <= position ? gap < home && home <= position : gap < home || home <= position;
            if (!staysBehindGap) {
                hashes[gap] = hashes[position];
                entries[2 * gap] = entries[2 * position];
                entries[2 * gap + 1] = entries[2 * position + 1];
                gap = position;
            }
        }
        hashes[gap] = 0;
        entries[2 * gap] = null;
        entries[2 * gap + 1] = null;
        size--;
        modifications++;
    }

    private void grow() {
        int[] oldHashes = hashes;
        Object[] oldEntries = entries;
        allocate(oldHashes.length << 1);
        int mask = hashes.length - 1;
        for (int i = 0; i < oldHashes.length; i++) {
            if (oldEntries[2 * i + 1] != null) {
                int slot = slotOf(oldHashes[i]);
                while (entries[2 * slot + 1] != null) {
                    slot = (slot + 1) & mask;
                }
                hashes[slot] = oldHashes[i];
                entries[2 * slot] = oldEntries[2 * i];
                entries[2 * slot + 1] = oldEntries[2 * i + 1];
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
        Arrays.fill(hashes, 0);
        Arrays.fill(entries, null);
        size = 0;
        modifications++;
    }

    @Override
    public Set<Map.Entry<K, V>> entrySet() {
        return new AbstractSet<>() {
            @Override
            public Iterator<Map.Entry<K, V>> iterator() {
                return new Entries();
            }

            @Override
            public int size() {
                return size;
            }
        };
    }

    /** Iterates the slots in order; {@code remove()} is not supported (a removal shifts entries back). */
    private final class Entries implements Iterator<Map.Entry<K, V>> {
        private final int expectedModifications = modifications;
        private int next = advance(0);

        private int advance(int from) {
            int slot = from;
            while (slot < hashes.length && entries[2 * slot + 1] == null) {
                slot++;
            }
            return slot;
        }

        @Override
        public boolean hasNext() {
            return next < hashes.length;
        }

        @Override
        @SuppressWarnings("unchecked")
        public Map.Entry<K, V> next() {
            if (modifications != expectedModifications) {
                throw new ConcurrentModificationException();
            }
            if (next >= hashes.length) {
                throw new NoSuchElementException();
            }
            Map.Entry<K, V> entry = new SimpleImmutableEntry<>((K) entries[2 * next], (V) entries[2 * next + 1]);
            next = advance(next + 1);
            return entry;
        }
    }
}
