package io.duraflow.state.backend;

/**
 * The timers of one time domain of a keyed operator, kept by its {@link KeyedStateBackend} as
 * state: per key group, at most one timer per (key, time), written into every snapshot and
 * restored (also on rescale, with the key groups they belong to). A backend keeps one service per
 * domain ({@link KeyedStateBackend#timerService()} for processing time, {@link
 * KeyedStateBackend#eventTimerService()} for event time); they share nothing, so the same key and
 * time in both are two timers. The task drives each on its thread: it asks {@link
 * #nextTimerTime()} to schedule a wake-up at the earliest processing-time timer and calls {@link
 * #fireUpTo} when that time comes, and calls the event-time service's {@link #fireUpTo} with each
 * watermark.
 */
public interface InternalTimerService<K> {
    /** {@link #nextTimerTime()} when there is no timer. */
    long NO_TIMER = Long.MAX_VALUE;

    /** Adds a timer of {@code key} at {@code time}; nothing if that timer exists. */
    void registerTimer(K key, long time);

    /** Removes the timer of {@code key} at {@code time}; nothing if there is none. */
    void deleteTimer(K key, long time);

    /** The earliest timer's time, or {@link #NO_TIMER}. */
    long nextTimerTime();

    /**
     * Fires, in time order (timers of equal time in an order of the backend's choosing), every timer
     * at or before {@code now}, removing each before its callback runs; timers that a callback
     * registers at or before {@code now} fire in the same call. The backend's current key is the
     * timer's key during its callback and is left at the last fired key afterwards.
     *
     * @return how many timers fired
     */
    int fireUpTo(long now, TimerCallback<K> callback) throws Exception;

    /** Timers registered and not yet fired or deleted. */
    int size();
}
