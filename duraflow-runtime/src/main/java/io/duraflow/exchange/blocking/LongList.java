package io.duraflow.exchange.blocking;

import java.util.Arrays;

/** A growable array of primitive longs (frame offsets), without boxing. */
final class LongList {
    private long[] values = new long[8];
    private int size;

    void add(long value) {
        if (size == values.length) {
            values = Arrays.copyOf(values, size * 2);
        }
        values[size++] = value;
    }

    long get(int index) {
        return values[index];
    }

    int size() {
        return size;
    }

    void clear() {
        size = 0;
    }
}
