package io.duraflow.api.windowing;

import io.duraflow.api.types.TypeSerializer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * Windows of a fixed size that start every {@code slide}, in event time; a record is in {@code
 * size / slide} windows (rounded up). The windows start at multiples of the slide, shifted by the
 * offset.
 */
public final class SlidingEventTimeWindows<T> extends WindowAssigner<T, TimeWindow> {
    private final long size;
    private final long slide;
    private final long offset;
    private final boolean eventTime;

    SlidingEventTimeWindows(long size, long slide, long offset, boolean eventTime) {
        if (offset < 0 || offset >= slide) {
            throw new IllegalArgumentException("a sliding window's offset must be at least 0 and less than its slide "
                    + durationText(slide) + ", got " + offset + " ms");
        }
        this.size = size;
        this.slide = slide;
        this.offset = offset;
        this.eventTime = eventTime;
    }

    public static <T> SlidingEventTimeWindows<T> of(Duration size, Duration slide) {
        return of(size, slide, Duration.ZERO);
    }

    public static <T> SlidingEventTimeWindows<T> of(Duration size, Duration slide, Duration offset) {
        return new SlidingEventTimeWindows<>(positiveMillis(size, "a sliding window's size"),
                positiveMillis(slide, "a sliding window's slide"), offset.toMillis(), true);
    }

    @Override
    public Collection<TimeWindow> assignWindows(T element, long timestamp) {
        List<TimeWindow> windows = new ArrayList<>((int) ((size + slide - 1) / slide));
        long lastStart = TimeWindow.windowStart(timestamp, offset, slide);
        for (long start = lastStart; start > timestamp - size; start -= slide) {
            windows.add(new TimeWindow(start, start + size));
        }
        return windows;
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
        return (eventTime ? "SlidingEventTimeWindows(" : "SlidingProcessingTimeWindows(") + durationText(size) + ", "
                + durationText(slide) + (offset == 0 ? "" : ", offset " + durationText(offset)) + ")";
    }
}
