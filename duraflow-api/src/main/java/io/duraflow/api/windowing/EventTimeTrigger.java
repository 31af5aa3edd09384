package io.duraflow.api.windowing;

/**
 * Fires a window once the watermark passes its end, and again for every record that arrives
 * afterwards within the allowed lateness (each such firing includes the earlier records).
 */
public final class EventTimeTrigger extends Trigger<Window> {
    private static final EventTimeTrigger INSTANCE = new EventTimeTrigger();

    private EventTimeTrigger() {}

    @SuppressWarnings("unchecked")
    public static <W extends Window> Trigger<W> create() {
        return (Trigger<W>) (Trigger<?>) INSTANCE;
    }

    @Override
    public TriggerResult onElement(long timestamp, Window window, TriggerContext context) {
        if (window.maxTimestamp() <= context.currentWatermark()) {
            return TriggerResult.FIRE; // a late record within the allowed lateness
        }
        context.registerEventTimeTimer(window.maxTimestamp());
        return TriggerResult.CONTINUE;
    }

    @Override
    public TriggerResult onEventTime(long time, Window window, TriggerContext context) {
        return time == window.maxTimestamp() ? TriggerResult.FIRE : TriggerResult.CONTINUE;
    }

    @Override
    public boolean canMerge() {
        return true;
    }

    @Override
    public void onMerge(Window window, TriggerContext context) {
        if (window.maxTimestamp() > context.currentWatermark()) {
            context.registerEventTimeTimer(window.maxTimestamp());
        }
    }

    @Override
    public String description() {
        return "EventTimeTrigger";
    }
}
