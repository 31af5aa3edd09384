package io.duraflow.api.windowing;

import io.duraflow.api.checkpoint.CheckpointAvailabilityProvider;
import io.duraflow.api.checkpoint.SnapshotAvailability;
import io.duraflow.api.functions.AggregateFunction;
import io.duraflow.api.functions.Collector;
import io.duraflow.api.functions.ReduceFunction;
import io.duraflow.api.functions.RuntimeContext;
import java.util.List;

/**
 * What a window operator computes: incrementally (an accumulator per window, then an optional
 * {@link ProcessWindowFunction} over its one result) or from all the window's records. Made by
 * its factories for {@code WindowedFlow}; nothing else implements it.
 */
public abstract sealed class WindowFunction<T, K, W extends Window> {
    /** Whether the window keeps all its records instead of an accumulator. */
    abstract boolean keepsElements();

    /** The accumulator with {@code value} added; {@code accumulator} is null for a window's first record. */
    abstract Object add(Object accumulator, T value) throws Exception;

    abstract Object merge(Object left, Object right) throws Exception;

    /** Emits the window's result: from {@code accumulator}, or from {@code elements}. */
    abstract void emit(K key, ProcessWindowFunction.Context<W> context, Object accumulator, Iterable<T> elements,
            Collector<Object> out) throws Exception;

    abstract void open(RuntimeContext context) throws Exception;

    abstract void close() throws Exception;

    abstract SnapshotAvailability isSnapshotAvailable(long checkpointId);

    @SuppressWarnings("unchecked")
    public static <T, K, W extends Window> WindowFunction<T, K, W> reduce(ReduceFunction<T> reduce,
            ProcessWindowFunction<T, ?, K, W> then) {
        return new Incremental<>(new AggregateFunction<T, Object, Object>() {
            @Override
            public Object createAccumulator() {
                return null;
            }

            @Override
            public Object add(Object accumulator, T value) throws Exception {
                return accumulator == null ? value : reduce.reduce((T) accumulator, value);
            }

            @Override
            public Object merge(Object left, Object right) throws Exception {
                return reduce.reduce((T) left, (T) right);
            }

            @Override
            public Object getResult(Object accumulator) {
                return accumulator;
            }
        }, reduce, (ProcessWindowFunction<Object, Object, K, W>) then);
    }

    @SuppressWarnings("unchecked")
    public static <T, K, W extends Window> WindowFunction<T, K, W> aggregate(AggregateFunction<T, ?, ?> aggregate,
            ProcessWindowFunction<?, ?, K, W> then) {
        AggregateFunction<T, Object, Object> function = (AggregateFunction<T, Object, Object>) aggregate;
        return new Incremental<>(new AggregateFunction<T, Object, Object>() {
            @Override
            public Object createAccumulator() {
                return null;
            }

            @Override
            public Object add(Object accumulator, T value) throws Exception {
                return function.add(accumulator == null ? function.createAccumulator() : accumulator, value);
            }

            @Override
            public Object merge(Object left, Object right) throws Exception {
                return function.merge(left, right);
            }

            @Override
            public Object getResult(Object accumulator) throws Exception {
                return function.getResult(accumulator);
            }
        }, aggregate, (ProcessWindowFunction<Object, Object, K, W>) then);
    }

    @SuppressWarnings("unchecked")
    public static <T, K, W extends Window> WindowFunction<T, K, W> process(ProcessWindowFunction<T, ?, K, W> function) {
        return new AllElements<>((ProcessWindowFunction<T, Object, K, W>) function);
    }

    private static final class Incremental<T, K, W extends Window> extends WindowFunction<T, K, W> {
        private final AggregateFunction<T, Object, Object> aggregate;
        private final Object userFunction;
        private final ProcessWindowFunction<Object, Object, K, W> then;

        Incremental(AggregateFunction<T, Object, Object> aggregate, Object userFunction,
                ProcessWindowFunction<Object, Object, K, W> then) {
            this.aggregate = aggregate;
            this.userFunction = userFunction;
            this.then = then;
        }

        @Override
        boolean keepsElements() {
            return false;
        }

        @Override
        Object add(Object accumulator, T value) throws Exception {
            return aggregate.add(accumulator, value);
        }

        @Override
        Object merge(Object left, Object right) throws Exception {
            return aggregate.merge(left, right);
        }

        @Override
        void emit(K key, ProcessWindowFunction.Context<W> context, Object accumulator, Iterable<T> elements,
                Collector<Object> out) throws Exception {
            Object result = aggregate.getResult(accumulator);
            if (then == null) {
                out.collect(result);
            } else {
                then.process(key, context, List.of(result), out);
            }
        }

        @Override
        void open(RuntimeContext context) throws Exception {
            if (then != null) {
                then.open(context);
            }
        }

        @Override
        void close() throws Exception {
            if (then != null) {
                then.close();
            }
        }

        @Override
        SnapshotAvailability isSnapshotAvailable(long checkpointId) {
            SnapshotAvailability answer = CheckpointAvailabilityProvider.availabilityOf(userFunction, checkpointId);
            return answer.isAvailable() ? CheckpointAvailabilityProvider.availabilityOf(then, checkpointId) : answer;
        }
    }

    private static final class AllElements<T, K, W extends Window> extends WindowFunction<T, K, W> {
        private final ProcessWindowFunction<T, Object, K, W> function;

        AllElements(ProcessWindowFunction<T, Object, K, W> function) {
            this.function = function;
        }

        @Override
        boolean keepsElements() {
            return true;
        }

        @Override
        Object add(Object accumulator, T value) {
            return null;
        }

        @Override
        Object merge(Object left, Object right) {
            return null;
        }

        @Override
        void emit(K key, ProcessWindowFunction.Context<W> context, Object accumulator, Iterable<T> elements,
                Collector<Object> out) throws Exception {
            function.process(key, context, elements, out);
        }

        @Override
        void open(RuntimeContext context) throws Exception {
            function.open(context);
        }

        @Override
        void close() throws Exception {
            function.close();
        }

        @Override
        SnapshotAvailability isSnapshotAvailable(long checkpointId) {
            return CheckpointAvailabilityProvider.availabilityOf(function, checkpointId);
        }
    }
}
