package io.duraflow.state.heap;

import java.util.Map;

/**
 * The entries of one state, one map per key group, copied on write while snapshots hold them.
 *
 * <p>The rule that keeps the synchronous part of a snapshot short: {@link #freeze()} hands the
 * current maps to the snapshot and marks every group frozen, in time proportional to the number of
 * key groups, not of keys. A frozen map is never changed again: the first {@link #writable} access
 * to a frozen group replaces it by a shallow copy, which the task then changes. The mutable
 * containers of list and map states are copied one key at a time, when the task first changes one
 * after the freeze ({@link #writableContainer}; each carries the {@link #epoch()} it was made in),
 * so a snapshot costs the task a copy of what it changes, not of all it holds. Reads never copy.
 * Values themselves are not copied: a value handed to the state must not be mutated in place
 * afterwards; it is replaced through {@code update()}/{@code put()} (the snapshot may still be
 * writing the old object).
 *
 * <p>The maps are {@link LongKeyMap}s (open addressing over a {@code long[]}) for a table created
 * with {@code longKeys}, which the backend does when the key serializer is {@code Types.LONG}, the
 * common case, whose per-record lookups it makes about twice as fast; {@link HashKeyMap}s for other
 * keys. Both let {@link #prefetch} load a batch of keys' slots before the records are processed.
 *
 * <p>Task thread only; a snapshot's thread reads only frozen maps.
 */
final class StateTable<K, S> {
    private final int firstKeyGroup;
    /** Copies a mutable container (list, map) into one of the given epoch; null for tables of values. */
    private final ContainerCopier<S> copier;
    private final boolean longKeys;
    private final Map<K, S>[] groups;
    private final boolean[] frozen;
    /** How many times the table was frozen: the epoch of the containers the task may change in place. */
    private int epoch;

    /** Copies a container made before a freeze into one of {@code epoch}, which the task may change. */
    @FunctionalInterface
    interface ContainerCopier<S> {
        S copy(S container, int epoch);
    }

    StateTable(int firstKeyGroup, int keyGroupCount, ContainerCopier<S> copier) {
        this(firstKeyGroup, keyGroupCount, copier, false);
    }

    /**
     * @param copier copies the containers of list and map states; null for a table of values
     * @param longKeys the keys are {@code Long}s: each key group is a {@link LongKeyMap}
     */
    @SuppressWarnings("unchecked")
    StateTable(int firstKeyGroup, int keyGroupCount, ContainerCopier<S> copier, boolean longKeys) {
        this.firstKeyGroup = firstKeyGroup;
        this.copier = copier;
        this.longKeys = longKeys;
        this.groups = new Map[keyGroupCount];
        this.frozen = new boolean[keyGroupCount];
        for (int i = 0; i < keyGroupCount; i++) {
            groups[i] = longKeys ? (Map<K, S>) new LongKeyMap<S>() : new HashKeyMap<>();
        }
    }

    int firstKeyGroup() {
        return firstKeyGroup;
    }

    S get(K key, int keyGroup) {
        return groups[keyGroup - firstKeyGroup].get(key);
    }

    /**
     * Loads the entries of {@code count} keys (Long keys only, each in a key group of this table)
     * into the CPU caches, so that their cache misses overlap instead of coming one per record:
     * first every key's home slot, then the header of every value found there, each in a tight
     * loop with independent loads. Adds the keys read to {@code sink[0]} and returns how many
     * values it found (so the loads are not dropped); {@code scratch} holds at least {@code count}
     * and is left cleared. Changes nothing.
     */
    int prefetch(long[] keys, int[] keyGroups, int count, Object[] scratch, long[] sink) {
        for (int i = 0; i < count; i++) {
            scratch[i] = ((LongKeyMap<?>) groups[keyGroups[i] - firstKeyGroup]).touchHome(keys[i], sink);
        }
        int found = 0;
        for (int i = 0; i < count; i++) {
            Object value = scratch[i];
            if (value != null && value.getClass() != StateTable.class) {
                found++;
            }
            scratch[i] = null;
        }
        return found;
    }

    /**
     * {@link #prefetch} for a table of other keys than Longs: {@code hashes} are the keys' hash
     * codes; the second loop loads each home slot's key (for its {@code equals}) and, where it is
     * the key looked for, nothing more: its value is loaded by the lookup.
     */
    int prefetchHashed(int[] hashes, int[] keyGroups, int count, Object[] scratch, long[] sink) {
        for (int i = 0; i < count; i++) {
            scratch[i] = ((HashKeyMap<?, ?>) groups[keyGroups[i] - firstKeyGroup]).touchHome(hashes[i], sink);
        }
        int found = 0;
        for (int i = 0; i < count; i++) {
            Object key = scratch[i];
            if (key != null && key.getClass() != StateTable.class) {
                found++;
            }
            scratch[i] = null;
        }
        return found;
    }

    /** {@link #get} of a table made with {@code longKeys}, without boxing the key or the Map interface. */
    @SuppressWarnings("unchecked")
    S getLong(long key, int keyGroup) {
        return ((LongKeyMap<S>) groups[keyGroup - firstKeyGroup]).getLong(key);
    }

    /** Puts a non-null value into a table made with {@code longKeys}, copying its key group first if frozen. */
    @SuppressWarnings("unchecked")
    void putLong(long key, int keyGroup, S value) {
        ((LongKeyMap<S>) writable(keyGroup)).putLong(key, value);
    }

    boolean longKeys() {
        return longKeys;
    }

    /** The map of a key group for reading; not to be changed. */
    Map<K, S> readable(int keyGroup) {
        return groups[keyGroup - firstKeyGroup];
    }

    /**
     * The map of a key group for adding, replacing and removing entries: copied first (shallowly)
     * if a snapshot holds it. A container found in it is changed through {@link #writableContainer}.
     */
    @SuppressWarnings("unchecked")
    Map<K, S> writable(int keyGroup) {
        int index = keyGroup - firstKeyGroup;
        if (frozen[index]) {
            Map<K, S> frozenMap = groups[index];
            groups[index] = longKeys ? (Map<K, S>) ((LongKeyMap<S>) frozenMap).copy()
                    : ((HashKeyMap<K, S>) frozenMap).copy();
            frozen[index] = false;
        }
        return groups[index];
    }

    /** The epoch of containers made now: {@link #writableContainer} copies those of earlier ones. */
    int epoch() {
        return epoch;
    }

    /**
     * The container of {@code key} for changing in place: one made before the last {@link
     * #freeze()} (a snapshot may hold it) is replaced by a copy first; a new one from {@code
     * create} (given the current epoch) if the key has none.
     */
    S writableContainer(K key, int keyGroup, java.util.function.IntFunction<S> create) {
        Map<K, S> group = writable(keyGroup);
        S container = group.get(key);
        if (container == null) {
            container = create.apply(epoch);
            group.put(key, container);
        } else if (!Containers.isOfEpoch(container, epoch)) {
            container = copier.copy(container, epoch);
            group.put(key, container);
        }
        return container;
    }

    /** Removes a key's entry; a frozen group is copied only if the key is there to remove. */
    void remove(K key, int keyGroup) {
        if (readable(keyGroup).containsKey(key)) {
            writable(keyGroup).remove(key);
        }
    }

    /** The maps of every key group as they are now, never to change again; see the class comment. */
    Map<K, S>[] freeze() {
        epoch++;
        java.util.Arrays.fill(frozen, true);
        return groups.clone();
    }

    long size() {
        long size = 0;
        for (Map<K, S> group : groups) {
            size += group.size();
        }
        return size;
    }
}
