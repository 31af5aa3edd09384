package io.duraflow.api.windowing;

import java.time.Duration;

/** {@link SlidingEventTimeWindows} in processing time: by the task's clock when a record arrives. */
public final class SlidingProcessingTimeWindows {
    private SlidingProcessingTimeWindows() {}

    public static <T> WindowAssigner<T, TimeWindow> of(Duration size, Duration slide) {
        return of(size, slide, Duration.ZERO);
    }

    public static <T> WindowAssigner<T, TimeWindow> of(Duration size, Duration slide, Duration offset) {
        return new SlidingEventTimeWindows<>(WindowAssigner.positiveMillis(size, "a sliding window's size"),
                WindowAssigner.positiveMillis(slide, "a sliding window's slide"), offset.toMillis(), false);
    }
}
