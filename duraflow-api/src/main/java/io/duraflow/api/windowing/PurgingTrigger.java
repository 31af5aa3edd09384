package io.duraflow.api.windowing;

/** Turns every firing of another trigger into fire and purge: each result covers only new records. */
public final class PurgingTrigger<W extends Window> extends Trigger<W> {
    private final Trigger<W> inner;

    private PurgingTrigger(Trigger<W> inner) {
        this.inner = java.util.Objects.requireNonNull(inner, "trigger");
    }

    public static <W extends Window> PurgingTrigger<W> of(Trigger<W> trigger) {
        return new PurgingTrigger<>(trigger);
    }

    private static TriggerResult purging(TriggerResult result) {
        return result.isFire() ? TriggerResult.FIRE_AND_PURGE : result;
    }

    @Override
    public TriggerResult onElement(long timestamp, W window, TriggerContext context) throws Exception {
        return purging(inner.onElement(timestamp, window, context));
    }

    @Override
    public TriggerResult onEventTime(long time, W window, TriggerContext context) throws Exception {
        return purging(inner.onEventTime(time, window, context));
    }

    @Override
    public TriggerResult onProcessingTime(long time, W window, TriggerContext context) throws Exception {
        return purging(inner.onProcessingTime(time, window, context));
    }

    @Override
    public boolean canMerge() {
        return inner.canMerge();
    }

    @Override
    public void onMerge(W window, TriggerContext context) throws Exception {
        inner.onMerge(window, context);
    }

    @Override
    public String description() {
        return "PurgingTrigger(" + inner.description() + ")";
    }
}
