package io.duraflow.api.functions;

/**
 * A collector that can give what it emits a timestamp of its own instead of the one of the record
 * or timer being handled. The engine's collectors for keyed process functions implement it; a
 * function checks with {@code instanceof} when it may run elsewhere (in a unit test, say).
 */
public interface TimestampedCollector<T> extends Collector<T> {
    /**
     * Emits {@code record} with the event-time {@code timestamp} ({@code
     * TimestampAssigner.NO_TIMESTAMP} for none).
     */
    void collect(T record, long timestamp);
}
