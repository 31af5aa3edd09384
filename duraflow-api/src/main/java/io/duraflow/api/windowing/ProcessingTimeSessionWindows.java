package io.duraflow.api.windowing;

import java.time.Duration;

/** {@link EventTimeSessionWindows} in processing time: by the task's clock when a record arrives. */
public final class ProcessingTimeSessionWindows {
    private ProcessingTimeSessionWindows() {}

    public static <T> MergingWindowAssigner<T, TimeWindow> withGap(Duration gap) {
        long millis = WindowAssigner.positiveMillis(gap, "a session gap");
        return new EventTimeSessionWindows<>(element -> millis, WindowAssigner.durationText(millis), false);
    }

    public static <T> MergingWindowAssigner<T, TimeWindow> withDynamicGap(EventTimeSessionWindows.SessionGap<T> gap) {
        return new EventTimeSessionWindows<>(gap, "dynamic", false);
    }
}
