package io.duraflow.api.functions;

/** The clock a timer follows: {@link KeyedProcessFunction.Context#timeDomain()} in {@code onTimer}. */
public enum TimeDomain {
    /** Fires when the operator's watermark reaches the timer's time. */
    EVENT_TIME,
    /** Fires when the task's clock (milliseconds since the epoch) reaches the timer's time. */
    PROCESSING_TIME
}
