package io.duraflow.api.state;

/** One value for the current key; {@code null} when none was set (or after {@link #clear()}). */
public interface ValueState<T> {
    T value();

    /** Sets the value; {@code null} clears it. */
    void update(T value);

    void clear();
}
