package io.duraflow.api.connectors;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.function.LongFunction;

/** Cuts a range of longs into contiguous splits and iterates one; shared by the range sources. */
final class RangeSplits {
    private RangeSplits() {}

    static void validate(long from, long toExclusive, int splitCount) {
        if (from > toExclusive) {
            throw new IllegalArgumentException("range start " + from + " is after its end " + toExclusive);
        }
        if (splitCount < 1) {
            throw new IllegalArgumentException("split count must be at least 1, got " + splitCount);
        }
    }

    /**
     * Cuts {@code [from, toExclusive)} into at most {@code splitCount} contiguous, non-empty
     * ranges in ascending order whose sizes differ by at most one. An empty range has no splits;
     * a range shorter than {@code splitCount} has one split per value.
     */
    static List<RangeSplit> split(long from, long toExclusive, int splitCount) {
        validate(from, toExclusive, splitCount);
        // The size may exceed Long.MAX_VALUE (e.g. the whole long range), so it is unsigned;
        // from + offset then wraps to the right signed value.
        long size = toExclusive - from;
        long count = Long.compareUnsigned(size, splitCount) < 0 ? size : splitCount;
        long base = Long.divideUnsigned(size, count == 0 ? 1 : count);
        long remainder = count == 0 ? 0 : Long.remainderUnsigned(size, count);
        List<RangeSplit> splits = new ArrayList<>((int) count);
        long start = from;
        for (long i = 0; i < count; i++) {
            long end = start + base + (i < remainder ? 1 : 0);
            splits.add(new RangeSplit(start, end));
            start = end;
        }
        return splits;
    }

    /** The values {@code function(i)} for i in the split, without boxing the index. */
    static <T> Iterator<T> iterator(RangeSplit split, LongFunction<T> function) {
        return new Iterator<>() {
            private long next = split.from();
            private final long end = split.to();

            @Override
            public boolean hasNext() {
                return next < end;
            }

            @Override
            public T next() {
                if (next >= end) {
                    throw new NoSuchElementException();
                }
                return function.apply(next++);
            }
        };
    }
}
