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
import io.duraflow.api.windowing.WindowedFlow;
import java.util.List;

/** A flow grouped by key: aggregate each group, or join with another flow on the key. */
public final class KeyedFlow<T, K> {
    private final Flow<T> input;
    private final KeySelector<T, K> keySelector;
    private final TypeSerializer<K> keyType;

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
        if (!right.keyType.description().equals(keyType.description())) {
            throw new IllegalArgumentException("join keys differ in type: " + keyType.description() + " vs "
                    + right.keyType.description());
        }
        Operation op = new Operation.JoinOp((KeySelector<Object, Object>) keySelector,
                (KeySelector<Object, Object>) right.keySelector, (TypeSerializer<Object>) keyType,
                (JoinFunction<Object, Object, Object>) function);
        return input.addWithInputs("Join", op, List.of(input.node, right.input.node), outputType);
    }
}
