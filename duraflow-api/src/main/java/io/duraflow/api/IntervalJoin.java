package io.duraflow.api;

import io.duraflow.api.functions.ProcessJoinFunction;
import io.duraflow.api.types.TypeSerializer;
import java.time.Duration;
import java.util.Objects;

/**
 * An interval join being built: {@code left.intervalJoin(right).between(lower, upper)
 * [.lowerBoundExclusive()][.upperBoundExclusive()].process(function, type)}. It pairs each left
 * record {@code a} with each right record {@code b} of its key with {@code a.ts + lower <= b.ts
 * <= a.ts + upper}, as Flink's interval join does: in event time, each pair once, with the later
 * of the two timestamps. Records that arrive behind the watermark (late) are dropped.
 *
 * <p>It is a {@link io.duraflow.api.functions.KeyedCoProcessFunction} over keyed state and
 * event-time timers (see {@code IntervalJoinFunction}): each side's records wait in state until
 * the watermark passes the last time a record of the other side could still join them.
 *
 * @param <T> the left record type
 * @param <R> the right record type
 * @param <K> the key type
 */
public final class IntervalJoin<T, R, K> {
    private final ConnectedKeyedFlows<T, R, K> inputs;

    IntervalJoin(ConnectedKeyedFlows<T, R, K> inputs) {
        this.inputs = inputs;
    }

    /**
     * The bounds, both inclusive until made exclusive, in milliseconds (a finer part is cut off):
     * a right record joins a left one when its time is from {@code lower} to {@code upper} after
     * it (negative: before it).
     *
     * @throws IllegalArgumentException when {@code lower} is above {@code upper}
     */
    public Bounded<T, R, K> between(Duration lower, Duration upper) {
        Objects.requireNonNull(lower, "lower");
        Objects.requireNonNull(upper, "upper");
        if (lower.compareTo(upper) > 0) {
            throw new IllegalArgumentException("intervalJoin: the lower bound " + lower + " is above the upper bound "
                    + upper + "; no pair would ever join");
        }
        return new Bounded<>(inputs, lower.toMillis(), upper.toMillis());
    }

    /** An interval join with its bounds: make them exclusive, or process the pairs. */
    public static final class Bounded<T, R, K> {
        private final ConnectedKeyedFlows<T, R, K> inputs;
        private final long lowerMs;
        private final long upperMs;
        private boolean lowerExclusive;
        private boolean upperExclusive;

        private Bounded(ConnectedKeyedFlows<T, R, K> inputs, long lowerMs, long upperMs) {
            this.inputs = inputs;
            this.lowerMs = lowerMs;
            this.upperMs = upperMs;
        }

        /** A right record exactly {@code lower} after the left one does not join it. */
        public Bounded<T, R, K> lowerBoundExclusive() {
            lowerExclusive = true;
            return this;
        }

        /** A right record exactly {@code upper} after the left one does not join it. */
        public Bounded<T, R, K> upperBoundExclusive() {
            upperExclusive = true;
            return this;
        }

        /**
         * Calls {@code function} for each joined pair (streaming mode). The records wait in keyed
         * state, written with the serializers of the two flows' record types.
         *
         * @throws IllegalArgumentException when exclusive bounds leave no time to join at
         */
        public <O> Flow<O> process(ProcessJoinFunction<T, R, O> function, TypeSerializer<O> outputType) {
            Objects.requireNonNull(function, "function");
            long lower = lowerExclusive ? lowerMs + 1 : lowerMs;
            long upper = upperExclusive ? upperMs - 1 : upperMs;
            if (lower > upper) {
                throw new IllegalArgumentException("intervalJoin: the bounds " + lowerMs + " ms" + (lowerExclusive
                        ? " (exclusive)" : "") + " to " + upperMs + " ms" + (upperExclusive ? " (exclusive)" : "")
                        + " hold no time to join at; widen them or make them inclusive");
            }
            return inputs.process("IntervalJoin", new IntervalJoinFunction<>(lower, upper, inputs.leftType(),
                    inputs.rightType(), function), outputType);
        }
    }
}
