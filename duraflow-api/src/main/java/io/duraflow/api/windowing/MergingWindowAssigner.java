package io.duraflow.api.windowing;

/**
 * An assigner whose windows of one key merge when they overlap, as sessions do: the window
 * operator keeps the merged windows per key, merges the contents of windows that come to overlap
 * (the aggregate's {@code merge}, or all elements) and asks the trigger to {@link Trigger#onMerge}.
 */
public abstract class MergingWindowAssigner<T, W extends Window> extends WindowAssigner<T, W> {
    /** Whether {@code a} and {@code b} merge into one window. */
    public abstract boolean mergeable(W a, W b);

    /** The window both merge into. */
    public abstract W merge(W a, W b);
}
