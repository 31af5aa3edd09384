package io.duraflow.api.windowing;

import io.duraflow.api.types.TypeSerializer;
import java.time.Duration;
import java.util.Collection;
import java.util.List;

/**
 * Fixed-size windows that do not overlap, in event time: a record with timestamp {@code t} is in
 * {@code [start, start + size)} with {@code start = t - (t - offset) mod size}. With an offset of
 * 0 the windows of one hour start on the hour (UTC).
 */
public final class TumblingEventTimeWindows<T> extends WindowAssigner<T, TimeWindow> {
    private final long size;
    private final long offset;
    private final boolean eventTime;

    TumblingEventTimeWindows(long size, long offset, boolean eventTime) {
        if (offset < 0 || offset >= size) {
            throw new IllegalArgumentException("a tumbling window's offset must be at least 0 and less than its size "
                    + durationText(size) + ", got " + offset + " ms");
        }
        this.size = size;
        this.offset = offset;
        this.eventTime = eventTime;
    }

    public static <T> TumblingEventTimeWindows<T> of(Duration size) {
        return of(size, Duration.ZERO);
    }

    public static <T> TumblingEventTimeWindows<T> of(Duration size, Duration offset) {
        return new TumblingEventTimeWindows<>(positiveMillis(size, "a tumbling window's size"), offset.toMillis(), true);
    }

    @Override
    public Collection<TimeWindow> assignWindows(T element, long timestamp) {
        long start = TimeWindow.windowStart(timestamp, offset, size);
        return List.of(new TimeWindow(start, start + size));
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
        return (eventTime ? "TumblingEventTimeWindows(" : "TumblingProcessingTimeWindows(") + durationText(size)
                + (offset == 0 ? "" : ", offset " + durationText(offset)) + ")";
    }
}
