package io.duraflow.api.eventtime;

import java.time.Duration;

/**
 * Watermarks for timestamps that arrive out of order by at most a bound: the highest timestamp
 * seen minus the bound, minus one (a record at exactly the bound below the maximum may still
 * come). With a bound of zero, for timestamps that never decrease.
 */
public final class BoundedOutOfOrdernessWatermarks<T> implements WatermarkGenerator<T> {
    private final long outOfOrdernessMs;
    private long maxTimestamp;

    public BoundedOutOfOrdernessWatermarks(Duration maxOutOfOrderness) {
        if (maxOutOfOrderness == null || maxOutOfOrderness.isNegative()) {
            throw new IllegalArgumentException("the out-of-orderness bound must be zero or positive, got "
                    + maxOutOfOrderness);
        }
        this.outOfOrdernessMs = maxOutOfOrderness.toMillis();
        // So that the first periodic watermark, before any record, is Long.MIN_VALUE and not an overflow.
        this.maxTimestamp = Long.MIN_VALUE + outOfOrdernessMs + 1;
    }

    @Override
    public void onEvent(T event, long eventTimestamp, WatermarkOutput output) {
        maxTimestamp = Math.max(maxTimestamp, eventTimestamp);
    }

    @Override
    public void onPeriodicEmit(WatermarkOutput output) {
        output.emitWatermark(maxTimestamp - outOfOrdernessMs - 1);
    }
}
