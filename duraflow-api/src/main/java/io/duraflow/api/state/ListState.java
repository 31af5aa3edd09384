package io.duraflow.api.state;

import java.util.List;

/** A list for the current key (keyed state) or for this parallel instance (operator state). */
public interface ListState<T> {
    /** The elements in the order they were added; empty, never {@code null}, when there are none. */
    Iterable<T> get();

    void add(T value);

    void addAll(List<T> values);

    /** Replaces the whole list. */
    void update(List<T> values);

    void clear();
}
