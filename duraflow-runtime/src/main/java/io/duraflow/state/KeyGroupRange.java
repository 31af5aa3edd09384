package io.duraflow.state;

/**
 * Key groups {@code start..end}, both inclusive; empty when {@code end < start}. A job's keys are
 * hashed into {@code maxParallelism} key groups once for its lifetime; each parallel instance of a
 * keyed operator owns one contiguous range, so rescaling moves whole key groups.
 */
public record KeyGroupRange(int start, int end) {
    public static final KeyGroupRange EMPTY = new KeyGroupRange(0, -1);

    public KeyGroupRange {
        if (start < 0 || end < start - 1) {
            throw new IllegalArgumentException("key group range " + start + ".." + end);
        }
        if (end < start) {
            start = 0;
            end = -1;
        }
    }

    /**
     * The range of parallel instance {@code index} of {@code parallelism}, over {@code
     * maxParallelism} key groups: instance i gets groups [ceil(i*max/p), ceil((i+1)*max/p) - 1], so
     * every group has exactly one owner and ranges differ in size by at most one.
     */
    public static KeyGroupRange ofOperatorIndex(int maxParallelism, int parallelism, int index) {
        if (parallelism < 1 || parallelism > maxParallelism || index < 0 || index >= parallelism) {
            throw new IllegalArgumentException("instance " + index + " of " + parallelism + " over "
                    + maxParallelism + " key groups");
        }
        int start = (int) (((long) index * maxParallelism + parallelism - 1) / parallelism);
        int end = (int) (((long) (index + 1) * maxParallelism + parallelism - 1) / parallelism) - 1;
        return new KeyGroupRange(start, end);
    }

    /** The parallel instance that owns {@code keyGroup}; the inverse of {@link #ofOperatorIndex}. */
    public static int operatorIndexOf(int maxParallelism, int parallelism, int keyGroup) {
        return (int) ((long) keyGroup * parallelism / maxParallelism);
    }

    public int size() {
        return end - start + 1;
    }

    public boolean isEmpty() {
        return end < start;
    }

    public boolean contains(int keyGroup) {
        return keyGroup >= start && keyGroup <= end;
    }

    public KeyGroupRange intersection(KeyGroupRange other) {
        int from = Math.max(start, other.start);
        int to = Math.min(end, other.end);
        return from <= to ? new KeyGroupRange(from, to) : EMPTY;
    }

    @Override
    public String toString() {
        return isEmpty() ? "[]" : "[" + start + ".." + end + "]";
    }
}
