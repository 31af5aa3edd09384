package io.duraflow.api.windowing;

/**
 * Fires a window once the task's clock passes its end. It registers its timer with the window's
 * first record (and for a window grown by a merge).
 */
public final class ProcessingTimeTrigger extends Trigger<Window> {
    private static final ProcessingTimeTrigger INSTANCE = new ProcessingTimeTrigger();

    private ProcessingTimeTrigger() {}

    @SuppressWarnings("unchecked")
    public static <W extends Window> Trigger<W> create() {
        return (Trigger<W>) (Trigger<?>) INSTANCE;
    }

    @Override
    public TriggerResult onElement(long timestamp, Window window, TriggerContext context) {
        if (context.count() == 1) {
            context.registerProcessingTimeTimer(window.maxTimestamp()); // the later records' timer too
        }
        return TriggerResult.CONTINUE;
    }

    @Override
    public TriggerResult onProcessingTime(long time, Window window, TriggerContext context) {
        return time == window.maxTimestamp() ? TriggerResult.FIRE : TriggerResult.CONTINUE;
    }

    @Override
    public boolean canMerge() {
        return true;
    }

    @Override
    public void onMerge(Window window, TriggerContext context) {
        context.registerProcessingTimeTimer(window.maxTimestamp());
    }

    @Override
    public String description() {
        return "ProcessingTimeTrigger";
    }
}
