package io.duraflow.state;

import java.util.Map;

/**
 * What one task (a chain of operators of one subtask) acknowledges a checkpoint with: the state of
 * each of its operators by the operator's stable id ({@code uid}), which is how state finds its
 * operator again when the job is restored, even in a changed job.
 */
public record TaskStateSnapshot(Map<String, OperatorSubtaskState> operators) {
    public static final TaskStateSnapshot EMPTY = new TaskStateSnapshot(Map.of());

    public TaskStateSnapshot {
        operators = Map.copyOf(operators);
    }

    public long stateSize() {
        return operators.values().stream().mapToLong(OperatorSubtaskState::stateSize).sum();
    }
}
