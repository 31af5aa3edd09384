package io.duraflow.state;

import java.util.List;

/** Everything one parallel instance of one operator put into a checkpoint. */
public record OperatorSubtaskState(List<KeyedStateHandle> keyedState, List<OperatorStateHandle> operatorState) {
    public static final OperatorSubtaskState EMPTY = new OperatorSubtaskState(List.of(), List.of());

    public OperatorSubtaskState {
        keyedState = List.copyOf(keyedState);
        operatorState = List.copyOf(operatorState);
    }

    public boolean isEmpty() {
        return keyedState.isEmpty() && operatorState.isEmpty();
    }

    public long stateSize() {
        long size = 0;
        for (KeyedStateHandle handle : keyedState) {
            size += handle.stateSize();
        }
        for (OperatorStateHandle handle : operatorState) {
            size += handle.stream().length();
        }
        return size;
    }
}
