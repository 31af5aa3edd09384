package io.duraflow.api;

import io.duraflow.api.functions.AggregateFunction;
import io.duraflow.api.functions.OutputTag;
import io.duraflow.api.functions.ReduceFunction;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.api.windowing.ProcessWindowFunction;
import io.duraflow.api.windowing.Trigger;
import io.duraflow.api.windowing.Window;
import io.duraflow.api.windowing.WindowAssigner;
import io.duraflow.api.windowing.WindowFunction;
import io.duraflow.api.windowing.WindowOperator;
import java.time.Duration;
import java.util.Objects;

/**
 * A keyed flow cut into windows ({@code keyBy(...).window(assigner)}): set the trigger, the
 * allowed lateness and where late records go, then say what each window computes. Windows run in
 * streaming mode, where their contents and timers are keyed state: checkpointed, restored and
 * rescaled with the job.
 *
 * <p>Incremental functions ({@link #reduce}, {@link #aggregate}) keep one accumulator per window;
 * {@link #process} keeps all its records. In event time a window fires once the watermark passes
 * its end; a record for a window that ended more than the allowed lateness ago is late: dropped,
 * or sent to the side output named by {@link #sideOutputLateData}. Results carry their window's
 * max timestamp.
 *
 * @param <T> the records
 * @param <K> the key
 * @param <W> the windows
 */
public final class WindowedFlow<T, K, W extends Window> {
    private final KeyedFlow<T, K> keyed;
    private final WindowAssigner<T, W> assigner;
    private Trigger<W> trigger;
    private long allowedLateness;
    private OutputTag<T> lateTag;

    private WindowedFlow(KeyedFlow<T, K> keyed, WindowAssigner<T, W> assigner) {
        this.keyed = keyed;
        this.assigner = assigner;
        this.trigger = assigner.defaultTrigger();
    }

    /** The same as {@code keyed.window(assigner)}. */
    @SuppressWarnings("unchecked")
    public static <T, K, W extends Window> WindowedFlow<T, K, W> of(KeyedFlow<T, K> keyed,
            WindowAssigner<? super T, W> assigner) {
        return new WindowedFlow<>(Objects.requireNonNull(keyed, "keyed"),
                (WindowAssigner<T, W>) Objects.requireNonNull(assigner, "assigner"));
    }

    /** Replaces the assigner's default trigger. */
    public WindowedFlow<T, K, W> trigger(Trigger<W> trigger) {
        this.trigger = Objects.requireNonNull(trigger, "trigger");
        return this;
    }

    /**
     * Keeps event-time windows this long after the watermark passed their end: a record that
     * arrives meanwhile is added and fires the window again (with the default trigger). Default 0.
     */
    public WindowedFlow<T, K, W> allowedLateness(Duration lateness) {
        if (lateness == null || lateness.isNegative()) {
            throw new IllegalArgumentException("the allowed lateness must be zero or positive, got " + lateness);
        }
        if (!assigner.isEventTime() && !lateness.isZero()) {
            throw new IllegalArgumentException("allowed lateness applies to event-time windows, and "
                    + assigner.description() + " is not one");
        }
        this.allowedLateness = lateness.toMillis();
        return this;
    }

    /** Sends late records to the side output {@code tag} (read it with {@code result.sideOutput(tag)}). */
    public WindowedFlow<T, K, W> sideOutputLateData(OutputTag<T> tag) {
        this.lateTag = Objects.requireNonNull(tag, "tag");
        return this;
    }

    /** Folds each window's records with {@code function}; emits the folded record. */
    public Flow<T> reduce(ReduceFunction<T> function) {
        return build("Reduce", WindowFunction.reduce(function, null), keyed.recordType(), keyed.recordType());
    }

    /** Folds each window's records with {@code reduce}, then hands the one result to {@code then}. */
    public <O> Flow<O> reduce(ReduceFunction<T> reduce, ProcessWindowFunction<T, O, K, W> then,
            TypeSerializer<O> outputType) {
        return build("Reduce", WindowFunction.reduce(reduce, then), keyed.recordType(), outputType);
    }

    /** Aggregates each window's records through an accumulator; emits the result. */
    public <A, O> Flow<O> aggregate(AggregateFunction<T, A, O> function, TypeSerializer<A> accumulatorType,
            TypeSerializer<O> outputType) {
        return build("Aggregate", WindowFunction.aggregate(function, null), accumulatorType, outputType);
    }

    /** Aggregates each window's records, then hands the one result to {@code then}. */
    public <A, R, O> Flow<O> aggregate(AggregateFunction<T, A, R> function, ProcessWindowFunction<R, O, K, W> then,
            TypeSerializer<A> accumulatorType, TypeSerializer<O> outputType) {
        return build("Aggregate", WindowFunction.aggregate(function, then), accumulatorType, outputType);
    }

    /** Hands all of each window's records to {@code function} (kept in state until the window ends). */
    public <O> Flow<O> process(ProcessWindowFunction<T, O, K, W> function, TypeSerializer<O> outputType) {
        return build("Process", WindowFunction.process(function), null, outputType);
    }

    @SuppressWarnings("unchecked")
    private <O> Flow<O> build(String what, WindowFunction<T, K, W> function, TypeSerializer<?> accumulatorType,
            TypeSerializer<O> outputType) {
        Objects.requireNonNull(outputType, "outputType");
        io.duraflow.api.functions.KeyedProcessFunction<K, T, Object> operator = WindowOperator.create(assigner,
                trigger, allowedLateness, lateTag, function, keyed.recordType(), accumulatorType);
        String name = "Window(" + assigner.description()
                + (trigger.description().equals(assigner.defaultTrigger().description()) ? ""
                        : ", " + trigger.description())
                + (allowedLateness == 0 ? "" : ", lateness " + WindowAssigner.durationText(allowedLateness)) + ") -> " + what;
        return keyed.process((io.duraflow.api.functions.KeyedProcessFunction<K, T, O>) (Object) operator, outputType)
                .name(name);
    }
}
