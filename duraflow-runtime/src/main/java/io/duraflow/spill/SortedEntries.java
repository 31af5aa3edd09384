package io.duraflow.spill;

import io.duraflow.api.types.DataWriter;
import io.duraflow.api.types.TypeSerializer;
import java.util.Arrays;
import java.util.Map;

/** The map's entries with serialized keys, sorted in {@link KeyOrder}. */
final class SortedEntries<A> {
    private final DataWriter keyBytes = new DataWriter(4096);
    private final int[] keyOffsets;
    private final int[] keyLengths;
    private final Object[] accumulators;
    /** Entry indexes in sorted order. */
    private final int[] order;

    private SortedEntries(int size) {
        keyOffsets = new int[size];
        keyLengths = new int[size];
        accumulators = new Object[size];
        order = new int[size];
    }

    static <K, A> SortedEntries<A> of(Map<K, SpillingAggregator.Slot<A>> entries, TypeSerializer<K> keyType,
            KeyOrder.KeyHasher hasher) {
        SortedEntries<A> sorted = new SortedEntries<>(entries.size());
        int i = 0;
        for (Map.Entry<K, SpillingAggregator.Slot<A>> entry : entries.entrySet()) {
            int start = sorted.keyBytes.position();
            keyType.write(entry.getKey(), sorted.keyBytes);
            sorted.keyOffsets[i] = start;
            sorted.keyLengths[i] = sorted.keyBytes.position() - start;
            sorted.accumulators[i] = entry.getValue().accumulator;
            i++;
        }
        sorted.sort(hasher);
        return sorted;
    }

    /**
     * Sorts primitive longs {@code (hash, index)} (the hash flipped so that signed order is
     * its unsigned order), then orders each run of equal hashes by key bytes; collisions are
     * rare, so nearly all the work is a primitive sort without comparator calls.
     */
    private void sort(KeyOrder.KeyHasher hasher) {
        byte[] bytes = keyBytes.buffer();
        long[] packed = new long[order.length];
        for (int i = 0; i < packed.length; i++) {
            int hash = hasher.hash(bytes, keyOffsets[i], keyLengths[i]);
            packed[i] = ((long) (hash ^ Integer.MIN_VALUE) << 32) | i;
        }
        Arrays.sort(packed);
        for (int i = 0; i < packed.length; i++) {
            order[i] = (int) packed[i];
        }
        int runStart = 0;
        for (int i = 1; i <= packed.length; i++) {
            if (i == packed.length || (packed[i] >>> 32) != (packed[runStart] >>> 32)) {
                if (i - runStart > 1) {
                    sortByKeyBytes(runStart, i);
                }
                runStart = i;
            }
        }
    }

    private void sortByKeyBytes(int from, int to) {
        byte[] bytes = keyBytes.buffer();
        Integer[] run = new Integer[to - from];
        for (int i = from; i < to; i++) {
            run[i - from] = order[i];
        }
        Arrays.sort(run, (a, b) -> Arrays.compareUnsigned(bytes, keyOffsets[a], keyOffsets[a] + keyLengths[a],
                bytes, keyOffsets[b], keyOffsets[b] + keyLengths[b]));
        for (int i = from; i < to; i++) {
            order[i] = run[i - from];
        }
    }

    int size() {
        return order.length;
    }

    byte[] keyBytes() {
        return keyBytes.buffer();
    }

    int keyOffset(int rank) {
        return keyOffsets[order[rank]];
    }

    int keyLength(int rank) {
        return keyLengths[order[rank]];
    }

    @SuppressWarnings("unchecked")
    A accumulator(int rank) {
        return (A) accumulators[order[rank]];
    }
}
