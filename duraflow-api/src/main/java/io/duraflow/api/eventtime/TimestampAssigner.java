package io.duraflow.api.eventtime;

/**
 * The event time of a record, in milliseconds since the epoch. Called once per record, on the
 * task thread, before the record's watermark generator sees it.
 *
 * @param <T> the record type
 */
@FunctionalInterface
public interface TimestampAssigner<T> {
    /** The timestamp a record has when nothing assigned one. */
    long NO_TIMESTAMP = Long.MIN_VALUE;

    /**
     * The timestamp of {@code element}; {@code recordTimestamp} is the one it already has (from
     * its source, e.g. a Kafka record's timestamp), or {@link #NO_TIMESTAMP}.
     */
    long extractTimestamp(T element, long recordTimestamp);
}
