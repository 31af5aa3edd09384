package io.duraflow.api.windowing;

import java.time.Duration;

/** {@link TumblingEventTimeWindows} in processing time: by the task's clock when a record arrives. */
public final class TumblingProcessingTimeWindows {
    private TumblingProcessingTimeWindows() {}

    public static <T> WindowAssigner<T, TimeWindow> of(Duration size) {
        return of(size, Duration.ZERO);
    }

    public static <T> WindowAssigner<T, TimeWindow> of(Duration size, Duration offset) {
        return new TumblingEventTimeWindows<>(WindowAssigner.positiveMillis(size, "a tumbling window's size"),
                offset.toMillis(), false);
    }
}
