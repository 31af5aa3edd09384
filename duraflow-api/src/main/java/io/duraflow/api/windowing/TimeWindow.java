package io.duraflow.api.windowing;

import io.duraflow.api.types.DataReader;
import io.duraflow.api.types.DataWriter;
import io.duraflow.api.types.TypeSerializer;

/**
 * The time interval {@code [start, end)} in milliseconds; the window of tumbling, sliding and
 * session assigners.
 */
public record TimeWindow(long start, long end) implements Window {
    /** Writes start and end as 8 bytes each, so windows of one key sort by start in RocksDB. */
    public static final TypeSerializer<TimeWindow> SERIALIZER = new TypeSerializer<>() {
        @Override
        public void write(TimeWindow value, DataWriter out) {
            out.writeLong(value.start);
            out.writeLong(value.end);
        }

        @Override
        public TimeWindow read(DataReader in) {
            return new TimeWindow(in.readLong(), in.readLong());
        }

        @Override
        public String description() {
            return "timeWindow";
        }
    };

    public TimeWindow {
        if (end <= start) {
            throw new IllegalArgumentException("a time window must end after it starts: [" + start + ", " + end + ")");
        }
    }

    @Override
    public long maxTimestamp() {
        return end - 1;
    }

    /** Whether the two windows overlap or touch (session windows that do are merged). */
    public boolean intersects(TimeWindow other) {
        return start <= other.end && end >= other.start;
    }

    /** The smallest window that covers both. */
    public TimeWindow cover(TimeWindow other) {
        return new TimeWindow(Math.min(start, other.start), Math.max(end, other.end));
    }

    /**
     * The start of the window of length {@code size}, shifted by {@code offset}, that holds
     * {@code timestamp}; also right for negative timestamps.
     */
    public static long windowStart(long timestamp, long offset, long size) {
        return timestamp - Math.floorMod(timestamp - offset, size);
    }

    // Written out: a record's generated equals and hashCode go through method handles that the JIT
    // does not always inline, and windows are map-state keys for every record.
    @Override
    public boolean equals(Object other) {
        return other instanceof TimeWindow window && start == window.start && end == window.end;
    }

    @Override
    public int hashCode() {
        return 31 * Long.hashCode(start) + Long.hashCode(end);
    }

    @Override
    public String toString() {
        return "[" + start + ", " + end + ")";
    }
}
