package io.duraflow.api.windowing;

/** Fires a window once the task's clock passes its end. */
public final class ProcessingTimeTrigger extends Trigger<Window> {
    private static final ProcessingTimeTrigger INSTANCE = new ProcessingTimeTrigger();

    private ProcessingTimeTrigger() {}

    @SuppressWarnings("unchecked")
    public static <W extends Window> Trigger<W> create() {
        return (Trigger<W>) (Trigger<?>) INSTANCE;
    }

    @Override
    public TriggerResult onElement(long timestamp, Window window, TriggerContext context) {
        context.registerProcessingTimeTimer(window.maxTimestamp());
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
