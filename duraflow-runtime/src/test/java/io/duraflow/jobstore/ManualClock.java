package io.duraflow.jobstore;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A clock that moves only when a test moves it. */
public final class ManualClock extends Clock {
    private volatile long nowMs;

    public ManualClock(long nowMs) {
        this.nowMs = nowMs;
    }

    public void advance(Duration duration) {
        nowMs += duration.toMillis();
    }

    public void setMillis(long nowMs) {
        this.nowMs = nowMs;
    }

    @Override
    public long millis() {
        return nowMs;
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochMilli(nowMs);
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException("a ManualClock is always UTC");
    }
}
