package io.duraflow.api.functions;

/**
 * Timers of the current key, in two independent time domains ({@link TimeDomain}): a
 * processing-time and an event-time timer of the same key and time are two timers. A timer fires
 * once per (domain, key, timestamp), on the task thread, through {@link
 * KeyedProcessFunction#onTimer}; timers are state, so they are checkpointed and fire after a
 * restore too: a processing-time timer at once when its time passed meanwhile, an event-time timer
 * when the restored job's watermark reaches it.
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

    /** Removes a processing-time timer of the current key; nothing happens when there is none at {@code time}. */
    void deleteProcessingTimeTimer(long time);

    /**
     * Fires {@code onTimer} for the current key once the operator's watermark reaches {@code time}
     * (a watermark at or above it arrives; the end of input is the end of time, so every event-time
     * timer fires before the operator ends). Timers fire in time order, each with its time as the
     * timestamp of what {@code onTimer} emits. A timer at or below the current watermark fires with
     * the next watermark the operator receives.
     */
    void registerEventTimeTimer(long time);

    /** Removes an event-time timer of the current key; nothing happens when there is none at {@code time}. */
    void deleteEventTimeTimer(long time);
}
