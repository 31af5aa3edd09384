package io.duraflow.state;

import io.duraflow.fs.FsPath;
import java.util.Map;
import java.util.Set;

/**
 * What one task (a chain of operators of one subtask) acknowledges a checkpoint with: the state of
 * each of its operators by the operator's stable id ({@code uid}), which is how state finds its
 * operator again when the job is restored, even in a changed job.
 *
 * @param fileMergingDirectories with checkpoint file merging, the file-merging directories the task
 *     writes into (see {@link CheckpointDirectories}), named whether it wrote there yet or not: the
 *     JobManager deletes none of them while a checkpoint names it
 */
public record TaskStateSnapshot(Map<String, OperatorSubtaskState> operators, Set<FsPath> fileMergingDirectories) {
    public static final TaskStateSnapshot EMPTY = new TaskStateSnapshot(Map.of());

    public TaskStateSnapshot {
        operators = Map.copyOf(operators);
        fileMergingDirectories = Set.copyOf(fileMergingDirectories);
    }

    public TaskStateSnapshot(Map<String, OperatorSubtaskState> operators) {
        this(operators, Set.of());
    }

    public long stateSize() {
        return operators.values().stream().mapToLong(OperatorSubtaskState::stateSize).sum();
    }
}
