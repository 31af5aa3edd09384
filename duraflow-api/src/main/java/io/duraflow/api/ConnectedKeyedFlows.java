package io.duraflow.api;

import io.duraflow.api.dag.Operation;
import io.duraflow.api.functions.KeySelector;
import io.duraflow.api.functions.KeyedCoProcessFunction;
import io.duraflow.api.types.TypeSerializer;
import java.util.List;

/**
 * Two flows keyed by the same key type, from {@code left.connect(right)}: the left is input 0 of
 * the operator that processes them, the right input 1.
 *
 * @param <T> the left record type
 * @param <R> the right record type
 * @param <K> the key type
 */
public final class ConnectedKeyedFlows<T, R, K> {
    final KeyedFlow<T, K> left;
    final KeyedFlow<R, K> right;

    ConnectedKeyedFlows(KeyedFlow<T, K> left, KeyedFlow<R, K> right) {
        this.left = left;
        this.right = right;
    }

    /**
     * Processes the records of both flows with {@code function}, which may keep keyed state and
     * set timers, shared by both inputs for each key (streaming mode). Records of one key go to one
     * parallel instance.
     */
    public <O> Flow<O> process(KeyedCoProcessFunction<K, T, R, O> function, TypeSerializer<O> outputType) {
        return process("KeyedCoProcess", function, outputType);
    }

    @SuppressWarnings("unchecked")
    <O> Flow<O> process(String name, KeyedCoProcessFunction<K, T, R, O> function, TypeSerializer<O> outputType) {
        Operation op = new Operation.KeyedCoProcessOp((KeySelector<Object, Object>) left.keySelector,
                (KeySelector<Object, Object>) right.keySelector, (TypeSerializer<Object>) left.keyType,
                (KeyedCoProcessFunction<Object, Object, Object, Object>) function);
        return left.input.addWithInputs(name, op, List.of(left.input.node, right.input.node), outputType);
    }

    @SuppressWarnings("unchecked")
    TypeSerializer<T> leftType() {
        return (TypeSerializer<T>) left.input.node.outputType();
    }

    @SuppressWarnings("unchecked")
    TypeSerializer<R> rightType() {
        return (TypeSerializer<R>) right.input.node.outputType();
    }
}
