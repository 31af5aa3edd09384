package io.duraflow.api.metrics;

/**
 * A count that only grows, such as records skipped or transactions committed. Updated on the task
 * thread only (the one that calls the reader, writer, committer or function), so an increment is a
 * plain addition.
 */
public final class Counter {
    private long count;

    public void inc() {
        count++;
    }

    /** @throws IllegalArgumentException if {@code n} is negative: a counter never goes down */
    public void inc(long n) {
        if (n < 0) {
            throw new IllegalArgumentException("a counter only grows, cannot add " + n);
        }
        count += n;
    }

    public long count() {
        return count;
    }
}
