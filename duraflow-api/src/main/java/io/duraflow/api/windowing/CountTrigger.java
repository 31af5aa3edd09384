package io.duraflow.api.windowing;

/**
 * Fires a window every {@code count} records (its contents stay; wrap it in {@link PurgingTrigger}
 * to start each count afresh). It replaces the window's default trigger, so event-time windows
 * with it no longer fire at their end.
 */
public final class CountTrigger extends Trigger<Window> {
    private final long count;

    private CountTrigger(long count) {
        if (count < 1) {
            throw new IllegalArgumentException("a count trigger needs a count of at least 1, got " + count);
        }
        this.count = count;
    }

    @SuppressWarnings("unchecked")
    public static <W extends Window> Trigger<W> of(long count) {
        return (Trigger<W>) (Trigger<?>) new CountTrigger(count);
    }

    @Override
    public TriggerResult onElement(long timestamp, Window window, TriggerContext context) {
        return context.count() >= count ? TriggerResult.FIRE : TriggerResult.CONTINUE;
    }

    @Override
    public boolean canMerge() {
        return true;
    }

    @Override
    public void onMerge(Window window, TriggerContext context) {}

    @Override
    public String description() {
        return "CountTrigger(" + count + ")";
    }
}
