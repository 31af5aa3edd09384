package io.duraflow.api.eventtime;

/**
 * A function that works on its records' timestamps (event-time windows, an interval join): a job
 * where no source or {@code assignTimestampsAndWatermarks} before it gives them timestamps is
 * refused when its plan is built, naming the operator, instead of failing at its first record.
 */
public interface UsesEventTime {
    /** What needs timestamps, for the message (e.g. {@code TumblingEventTimeWindows(1m)}); null: nothing. */
    String eventTimeUse();
}
