package io.duraflow.api.windowing;

/**
 * A group of records of one key that a window operator aggregates and emits together. Windows are
 * values: equal windows are the same window.
 */
public interface Window {
    /**
     * The highest timestamp that belongs to this window; its results carry it as their timestamp,
     * and an event-time window is complete once the watermark reaches it.
     */
    long maxTimestamp();
}
