package io.duraflow.api.windowing;

/** What a trigger decides for a window. */
public enum TriggerResult {
    /** Nothing happens. */
    CONTINUE(false, false),
    /** The window's function runs on its contents, which stay (a later firing sees them again). */
    FIRE(true, false),
    /** The window's contents are dropped without a result. */
    PURGE(false, true),
    /** The window's function runs, then its contents are dropped. */
    FIRE_AND_PURGE(true, true);

    private final boolean fire;
    private final boolean purge;

    TriggerResult(boolean fire, boolean purge) {
        this.fire = fire;
        this.purge = purge;
    }

    public boolean isFire() {
        return fire;
    }

    public boolean isPurge() {
        return purge;
    }
}
