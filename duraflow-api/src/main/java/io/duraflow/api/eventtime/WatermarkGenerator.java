package io.duraflow.api.eventtime;

/**
 * Emits watermarks from the timestamps a stream (one split of a source, or one subtask of a
 * flow) shows it. One instance per split or subtask, called on the task thread only; it keeps
 * no state across a restore (after one it starts again from what it sees).
 *
 * @param <T> the record type
 */
public interface WatermarkGenerator<T> {
    /** A record with timestamp {@code eventTimestamp}; may emit a watermark at once (punctuated). */
    void onEvent(T event, long eventTimestamp, WatermarkOutput output);

    /**
     * Called every {@code pipeline.auto-watermark-interval} (200 ms by default) of processing
     * time: emit the watermark the records seen so far allow (periodic).
     */
    void onPeriodicEmit(WatermarkOutput output);
}
