package io.duraflow.api.windowing;

/**
 * Fires a window once the watermark passes its end, and again for every record that arrives
 * afterwards within the allowed lateness (each such firing includes the earlier records). It
 * registers its timer with the window's first record (and for a window grown by a merge): the
 * records after it would register the same timer again.
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
        if (context.count() == 1) {
            // The window's first record: it has not fired (it fires only once the watermark passed
            // its end, and takes the branch above from then on), so its count counts from it.
            context.registerEventTimeTimer(window.maxTimestamp());
        }
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
