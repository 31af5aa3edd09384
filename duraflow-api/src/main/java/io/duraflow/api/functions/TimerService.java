package io.duraflow.api.functions;

/**
 * Timers of the current key. A timer fires once per (key, timestamp), on the task thread, through
 * {@link KeyedProcessFunction#onTimer}; timers are state, so they are checkpointed and fire after
 * a restore too (at once, when their time passed meanwhile). Event-time timers are to come.
 */
public interface TimerService {
    /** Milliseconds since the epoch, from the task's clock. */
    long currentProcessingTime();

    /**
     * The operator's event time: the latest watermark it received ({@code Long.MIN_VALUE} before
     * the first, {@code Long.MAX_VALUE} at the end of its input). A record at or below it is late.
     */
    long currentWatermark();

    /** Fires {@code onTimer} for the current key once the processing time reaches {@code time}. */
    void registerProcessingTimeTimer(long time);

    /** Removes a timer of the current key; nothing happens when there is none at {@code time}. */
    void deleteProcessingTimeTimer(long time);
}
