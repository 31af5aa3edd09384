package io.duraflow.api.eventtime;

/**
 * Where a {@link WatermarkGenerator} emits. A watermark lower than one emitted before changes
 * nothing: event time never goes back.
 */
public interface WatermarkOutput {
    /** No record with a timestamp at or below {@code watermark} follows from this output. */
    void emitWatermark(long watermark);

    /**
     * This output has no records for now and must not hold back the others' event time until it
     * emits again (a record or a watermark makes it active).
     */
    void markIdle();

    /** This output has records again; an emitted watermark does this too. */
    void markActive();
}
