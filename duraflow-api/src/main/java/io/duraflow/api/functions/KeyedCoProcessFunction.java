package io.duraflow.api.functions;

import io.duraflow.api.checkpoint.CheckpointAvailabilityProvider;
import io.duraflow.api.checkpoint.SnapshotAvailability;

/**
 * Processes the records of two keyed streams with the same key type, one by one, with keyed state
 * and timers shared by both: {@code left.connect(right).process(function)} (streaming mode). The
 * records of one key from both streams go to one parallel instance, which sees each stream's
 * records in the order they arrive there, interleaved in no particular order across the two.
 *
 * <p>State and timers are scoped to the current record's key, whichever input it came from, so
 * state written for a left record is what a right record of the same key reads. Event time is the
 * lower of the two inputs' watermarks: an event-time timer fires once both passed it. The {@link
 * KeyedProcessFunction.Context} is the same as a keyed process function's.
 *
 * @param <K> the key type
 * @param <I1> the record type of the first (left) input
 * @param <I2> the record type of the second (right) input
 * @param <O> the output record type
 */
public abstract class KeyedCoProcessFunction<K, I1, I2, O> implements CheckpointAvailabilityProvider {
    /** Called once per parallel instance before the first record, after state is restored. */
    public void open(RuntimeContext context) throws Exception {}

    /** A record of the first input; {@code context.currentKey()} is its key. */
    public abstract void processElement1(I1 value, KeyedProcessFunction.Context<K> context, Collector<O> out)
            throws Exception;

    /** A record of the second input; {@code context.currentKey()} is its key. */
    public abstract void processElement2(I2 value, KeyedProcessFunction.Context<K> context, Collector<O> out)
            throws Exception;

    /**
     * A timer of {@code context.currentKey()} at {@code timestamp} fired; {@code
     * context.timeDomain()} tells whether it was an event-time or a processing-time timer.
     */
    public void onTimer(long timestamp, KeyedProcessFunction.Context<K> context, Collector<O> out) throws Exception {}

    /**
     * Whether this function can take its part of checkpoint {@code checkpointId} now (see {@link
     * SnapshotAvailability}); asked on the task thread between two records. Default: available.
     */
    @Override
    public SnapshotAvailability isSnapshotAvailable(long checkpointId) {
        return SnapshotAvailability.available();
    }

    /** Called once at the end, also after a failure; release resources here. */
    public void close() throws Exception {}
}
