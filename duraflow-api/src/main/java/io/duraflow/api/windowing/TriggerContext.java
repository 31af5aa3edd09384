package io.duraflow.api.windowing;

/** What a {@link Trigger} sees of its window's key: time, timers and the window's record count. */
public interface TriggerContext {
    long currentWatermark();

    long currentProcessingTime();

    /** A timer of the key; calls {@link Trigger#onEventTime} for each of its windows when it fires. */
    void registerEventTimeTimer(long time);

    /** A timer of the key; calls {@link Trigger#onProcessingTime} for each of its windows when it fires. */
    void registerProcessingTimeTimer(long time);

    /**
     * The records added to the window since it last fired or was purged (merged windows add up),
     * the one being added included.
     */
    long count();
}
