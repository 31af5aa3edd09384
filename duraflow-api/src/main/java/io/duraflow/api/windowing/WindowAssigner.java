package io.duraflow.api.windowing;

import io.duraflow.api.types.TypeSerializer;
import java.util.Collection;

/**
 * Puts each record into windows: {@code keyBy(...).window(assigner)}. A window assigner works in
 * event time (the records' timestamps; see {@code WatermarkStrategy}) or in processing time (the
 * task's clock when the record arrives).
 *
 * @param <T> the records
 * @param <W> the windows
 */
public abstract class WindowAssigner<T, W extends Window> {
    /** The windows {@code element}, with {@code timestamp} (event or processing time), belongs to. */
    public abstract Collection<W> assignWindows(T element, long timestamp);

    /** The trigger the windows get unless the job sets another one. */
    public abstract Trigger<W> defaultTrigger();

    /** Writes the windows into state and checkpoints. */
    public abstract TypeSerializer<W> windowSerializer();

    /** Whether windows are in event time (else processing time). */
    public abstract boolean isEventTime();

    /** A short text that names the assigner and its sizes, for the operator's name and the plan. */
    public abstract String description();

    @Override
    public String toString() {
        return description();
    }

    static long positiveMillis(java.time.Duration duration, String what) {
        if (duration == null || duration.isNegative() || duration.isZero()) {
            throw new IllegalArgumentException(what + " must be positive, got " + duration);
        }
        return duration.toMillis();
    }

    /** A duration as people write it: 10ms, 5s, 1m, 1h30m. */
    public static String durationText(long millis) {
        if (millis % 1000 != 0) {
            return millis + "ms";
        }
        return java.time.Duration.ofMillis(millis).toString().substring(2).toLowerCase(java.util.Locale.ROOT);
    }
}
