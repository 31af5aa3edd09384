package io.duraflow.api.windowing;

/**
 * Decides when a window emits its result: on each record, and on timers it registers. Timers are
 * those of the window's key: a trigger is called for every window of the key whose timer time
 * came, so it compares the time with its window's (as {@link EventTimeTrigger} does). A trigger
 * keeps no state of its own; {@link TriggerContext#count()} counts a window's records.
 *
 * <p>Whatever the trigger says, a window's contents are dropped when the window ends: at its
 * {@link Window#maxTimestamp()} plus the allowed lateness in event time, at its max timestamp in
 * processing time.
 *
 * @param <W> the windows
 */
public abstract class Trigger<W extends Window> {
    /** A record with {@code timestamp} was added to {@code window}. */
    public abstract TriggerResult onElement(long timestamp, W window, TriggerContext context) throws Exception;

    /** An event-time timer of the window's key at {@code time} fired. */
    public TriggerResult onEventTime(long time, W window, TriggerContext context) throws Exception {
        return TriggerResult.CONTINUE;
    }

    /** A processing-time timer of the window's key at {@code time} fired. */
    public TriggerResult onProcessingTime(long time, W window, TriggerContext context) throws Exception {
        return TriggerResult.CONTINUE;
    }

    /** Whether the trigger works with merging windows (sessions). */
    public boolean canMerge() {
        return false;
    }

    /** Windows merged into {@code window}; register its timers. */
    public void onMerge(W window, TriggerContext context) throws Exception {
        throw new UnsupportedOperationException(description() + " does not support merging windows");
    }

    /** Names the trigger and its settings, for the operator's name and the plan. */
    public abstract String description();

    @Override
    public String toString() {
        return description();
    }
}
