package io.duraflow.api.windowing;

import io.duraflow.api.types.TypeSerializer;
import java.time.Duration;
import java.util.Collection;
import java.util.List;

/**
 * Sessions in event time: each record opens the window {@code [t, t + gap)}, and the windows of a
 * key that overlap or touch merge, so a session ends once its key had no record for the gap. The
 * gap may depend on the record ({@link #withDynamicGap}).
 */
public final class EventTimeSessionWindows<T> extends MergingWindowAssigner<T, TimeWindow> {
    /** The gap after a record, in milliseconds; must be positive. */
    @FunctionalInterface
    public interface SessionGap<T> {
        long gapMillis(T element);
    }

    private final SessionGap<T> gap;
    private final String gapText;
    private final boolean eventTime;

    EventTimeSessionWindows(SessionGap<T> gap, String gapText, boolean eventTime) {
        this.gap = gap;
        this.gapText = gapText;
        this.eventTime = eventTime;
    }

    public static <T> EventTimeSessionWindows<T> withGap(Duration gap) {
        long millis = positiveMillis(gap, "a session gap");
        return new EventTimeSessionWindows<>(element -> millis, durationText(millis), true);
    }

    /** Sessions whose gap after each record is {@code gap.gapMillis(record)}. */
    public static <T> EventTimeSessionWindows<T> withDynamicGap(SessionGap<T> gap) {
        return new EventTimeSessionWindows<>(gap, "dynamic", true);
    }

    @Override
    public Collection<TimeWindow> assignWindows(T element, long timestamp) {
        long millis = gap.gapMillis(element);
        if (millis <= 0) {
            throw new IllegalArgumentException("a session gap must be positive, got " + millis + " ms for " + element);
        }
        return List.of(new TimeWindow(timestamp, timestamp + millis));
    }

    @Override
    public boolean mergeable(TimeWindow a, TimeWindow b) {
        return a.intersects(b);
    }

    @Override
    public TimeWindow merge(TimeWindow a, TimeWindow b) {
        return a.cover(b);
    }

    @Override
    public Trigger<TimeWindow> defaultTrigger() {
        return eventTime ? EventTimeTrigger.create() : ProcessingTimeTrigger.create();
    }

    @Override
    public TypeSerializer<TimeWindow> windowSerializer() {
        return TimeWindow.SERIALIZER;
    }

    @Override
    public boolean isEventTime() {
        return eventTime;
    }

    @Override
    public String description() {
        return (eventTime ? "EventTimeSessionWindows(" : "ProcessingTimeSessionWindows(") + gapText + ")";
    }
}
