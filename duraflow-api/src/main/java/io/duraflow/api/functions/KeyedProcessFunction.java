package io.duraflow.api.functions;

import io.duraflow.api.checkpoint.CheckpointAvailabilityProvider;
import io.duraflow.api.checkpoint.SnapshotAvailability;

/**
 * Processes the records of a keyed stream one by one, with keyed state and timers:
 * {@code flow.keyBy(selector).process(function)}. State and timers are scoped to the record's key.
 *
 * <p>Declare state in {@link #open} through {@code context.state()} and keep the handles in fields;
 * the handles read and write the value of whichever key is current.
 *
 * @param <K> the key type
 * @param <I> the input record type
 * @param <O> the output record type
 */
public abstract class KeyedProcessFunction<K, I, O> implements CheckpointAvailabilityProvider {
    /** What a call knows about the record or timer it handles. */
    public interface Context<K> {
        K currentKey();

        /**
         * The event-time timestamp of the record being processed; in {@code onTimer} of an
         * event-time timer, the timer's time. {@code TimestampAssigner.NO_TIMESTAMP} ({@code
         * Long.MIN_VALUE}) when the record has none (no watermark strategy upstream) and in {@code
         * onTimer} of a processing-time timer. What the function emits carries this timestamp.
         */
        long timestamp();

        TimerService timerService();

        /**
         * In {@code onTimer}, the domain of the timer that fired.
         *
         * @throws IllegalStateException in {@code processElement}: a record is not a timer
         */
        TimeDomain timeDomain();

        /**
         * Emits {@code value} to the side output {@code tag}, with the same timestamp as the main
         * output would have. A side output that no part of the job reads is dropped.
         */
        default <X> void output(OutputTag<X> tag, X value) {
            throw new UnsupportedOperationException("side outputs are not supported here");
        }
    }

    /** Called once per parallel instance before the first record, after state is restored. */
    public void open(RuntimeContext context) throws Exception {}

    public abstract void processElement(I value, Context<K> context, Collector<O> out) throws Exception;

    /**
     * A timer of {@code context.currentKey()} at {@code timestamp} fired; {@code
     * context.timeDomain()} tells whether it was an event-time or a processing-time timer (a
     * function with timers of both domains at the same time gets two calls).
     */
    public void onTimer(long timestamp, Context<K> context, Collector<O> out) throws Exception {}

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
