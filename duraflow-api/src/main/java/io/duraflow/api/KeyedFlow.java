package io.duraflow.api;

import io.duraflow.api.checkpoint.CheckpointAvailabilityProvider;
import io.duraflow.api.checkpoint.SnapshotAvailability;
import io.duraflow.api.functions.AggregateFunction;
import io.duraflow.api.functions.JoinFunction;
import io.duraflow.api.functions.KeySelector;
import io.duraflow.api.functions.KeyedProcessFunction;
import io.duraflow.api.functions.ReduceFunction;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.api.dag.KeyedAggregation;
import io.duraflow.api.dag.Operation;
import io.duraflow.api.windowing.Window;
import io.duraflow.api.windowing.WindowAssigner;
import java.util.List;

/**
 * A flow grouped by key: aggregate each group, process it with keyed state and timers, or join
 * it with, or connect it to, another flow keyed by the same key type.
 */
public final class KeyedFlow<T, K> {
    final Flow<T> input;
    final KeySelector<T, K> keySelector;
    final TypeSerializer<K> keyType;

    KeyedFlow(Flow<T> input, KeySelector<T, K> keySelector, TypeSerializer<K> keyType) {
        this.input = input;
        this.keySelector = keySelector;
        this.keyType = keyType;
    }

    /** The serializer of the records. */
    public TypeSerializer<T> recordType() {
        @SuppressWarnings("unchecked")
        TypeSerializer<T> type = (TypeSerializer<T>) input.node.outputType();
        return type;
    }

    /** The serializer of the keys. */
    public TypeSerializer<K> keyType() {
        return keyType;
    }

    /**
     * Cuts each key's records into windows (streaming): tumbling, sliding or session windows in
     * event or processing time, or one global window; see {@link WindowedFlow}.
     */
    public <W extends Window> WindowedFlow<T, K, W> window(WindowAssigner<? super T, W> assigner) {
        return WindowedFlow.of(this, assigner);
    }

    /** Folds the records of each key into one with an associative, commutative function. */
    public Flow<T> reduce(ReduceFunction<T> function) {
        KeyedAggregation<T, K, T, T> aggregation = new KeyedAggregation<>() {
            @Override
            public T first(T value) {
                return value;
            }

            @Override
            public T add(T accumulator, T value) throws Exception {
                return function.reduce(accumulator, value);
            }

            @Override
            public T merge(T left, T right) throws Exception {
                return function.reduce(left, right);
            }

            @Override
            public T result(K key, T accumulator) {
                return accumulator;
            }

            @Override
            public SnapshotAvailability isSnapshotAvailable(long checkpointId) {
                return CheckpointAvailabilityProvider.availabilityOf(function, checkpointId);
            }
        };
        return aggregate("Reduce", aggregation, input.node.outputType(), input.node.outputType());
    }

    /** Aggregates the records of each key through an accumulator. */
    public <A, O> Flow<O> aggregate(AggregateFunction<T, A, O> function, TypeSerializer<A> accumulatorType,
            TypeSerializer<O> outputType) {
        KeyedAggregation<T, K, A, O> aggregation = new KeyedAggregation<>() {
            @Override
            public A first(T value) throws Exception {
                return function.add(function.createAccumulator(), value);
            }

            @Override
            public A add(A accumulator, T value) throws Exception {
                return function.add(accumulator, value);
            }

            @Override
            public A merge(A left, A right) throws Exception {
                return function.merge(left, right);
            }

            @Override
            public O result(K key, A accumulator) throws Exception {
                return function.getResult(accumulator);
            }

            @Override
            public SnapshotAvailability isSnapshotAvailable(long checkpointId) {
                return CheckpointAvailabilityProvider.availabilityOf(function, checkpointId);
            }
        };
        return aggregate("Aggregate", aggregation, accumulatorType, outputType);
    }

    @SuppressWarnings("unchecked")
    private <A, O> Flow<O> aggregate(String name, KeyedAggregation<T, K, A, O> aggregation,
            TypeSerializer<?> accumulatorType, TypeSerializer<?> outputType) {
        Operation op = new Operation.KeyedAggregateOp((KeySelector<Object, Object>) keySelector,
                (TypeSerializer<Object>) keyType, (KeyedAggregation<Object, Object, Object, Object>) aggregation,
                (TypeSerializer<Object>) accumulatorType);
        return input.add(name, op, outputType);
    }

    /**
     * Processes each record with {@code function}, which may keep keyed state and set timers
     * (streaming mode). Records of one key go to one parallel instance, in the order they arrive
     * there.
     */
    @SuppressWarnings("unchecked")
    public <O> Flow<O> process(KeyedProcessFunction<K, T, O> function, TypeSerializer<O> outputType) {
        Operation op = new Operation.KeyedProcessOp((KeySelector<Object, Object>) keySelector,
                (TypeSerializer<Object>) keyType, (KeyedProcessFunction<Object, Object, Object>) function);
        return input.add("KeyedProcess", op, outputType);
    }

    /**
     * Inner equi-join: for every left record and right record with equal keys, emits
     * {@code function.join(left, right)}.
     */
    @SuppressWarnings("unchecked")
    public <R, O> Flow<O> join(KeyedFlow<R, K> right, JoinFunction<T, R, O> function, TypeSerializer<O> outputType) {
        checkSameKeyType("join", right);
        Operation op = new Operation.JoinOp((KeySelector<Object, Object>) keySelector,
                (KeySelector<Object, Object>) right.keySelector, (TypeSerializer<Object>) keyType,
                (JoinFunction<Object, Object, Object>) function);
        return input.addWithInputs("Join", op, List.of(input.node, right.input.node), outputType);
    }

    /**
     * Connects this flow (the first, left input) to {@code other} (the second, right input): a
     * {@link io.duraflow.api.functions.KeyedCoProcessFunction} then processes the records of both,
     * with keyed state and timers shared by the two for each key (streaming mode).
     *
     * @throws IllegalArgumentException when the two key types differ
     */
    public <R> ConnectedKeyedFlows<T, R, K> connect(KeyedFlow<R, K> other) {
        checkSameKeyType("connect", other);
        return new ConnectedKeyedFlows<>(this, other);
    }

    /**
     * Joins this flow's records (left) with {@code other}'s (right) of the same key whose event
     * times are close: {@code intervalJoin(other).between(lower, upper)} pairs a left record
     * {@code a} with each right record {@code b} of its key with {@code a.ts + lower <= b.ts <=
     * a.ts + upper} (streaming mode, event time: both inputs need timestamps and watermarks).
     *
     * @throws IllegalArgumentException when the two key types differ
     */
    public <R> IntervalJoin<T, R, K> intervalJoin(KeyedFlow<R, K> other) {
        checkSameKeyType("intervalJoin", other);
        return new IntervalJoin<>(new ConnectedKeyedFlows<>(this, other));
    }

    private void checkSameKeyType(String operation, KeyedFlow<?, ?> other) {
        if (!other.keyType.description().equals(keyType.description())) {
            throw new IllegalArgumentException(operation + " keys differ in type: " + keyType.description() + " vs "
                    + other.keyType.description());
        }
    }
}
