package io.duraflow.checkpoint;

import io.duraflow.state.OperatorSubtaskState;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * One operator's part of a checkpoint: the parallelism it ran with, its operator coordinator's
 * (split enumerator's) snapshot if it has one, and the state of each subtask that had any.
 *
 * @param coordinatorState null when the operator has no coordinator
 * @param subtasks by subtask index in {@code [0, parallelism)}
 */
public record OperatorCheckpointState(String uid, int parallelism, byte[] coordinatorState,
        Map<Integer, OperatorSubtaskState> subtasks) {
    public OperatorCheckpointState {
        Objects.requireNonNull(uid, "uid");
        if (parallelism < 1) {
            throw new IllegalArgumentException("operator " + uid + " with parallelism " + parallelism);
        }
        coordinatorState = coordinatorState == null ? null : coordinatorState.clone();
        subtasks = Map.copyOf(subtasks);
        for (int subtask : subtasks.keySet()) {
            if (subtask < 0 || subtask >= parallelism) {
                throw new IllegalArgumentException("operator " + uid + " has state of subtask " + subtask
                        + " but parallelism " + parallelism);
            }
        }
    }

    public Optional<byte[]> coordinatorStateBytes() {
        return Optional.ofNullable(coordinatorState).map(byte[]::clone);
    }

    @Override
    public byte[] coordinatorState() {
        return coordinatorState == null ? null : coordinatorState.clone();
    }

    /** The subtasks' states sorted by index, for stable output. */
    public TreeMap<Integer, OperatorSubtaskState> sortedSubtasks() {
        return new TreeMap<>(subtasks);
    }

    public long stateSize() {
        long size = coordinatorState == null ? 0 : coordinatorState.length;
        for (OperatorSubtaskState state : subtasks.values()) {
            size += state.stateSize();
        }
        return size;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof OperatorCheckpointState that && uid.equals(that.uid) && parallelism == that.parallelism
                && Arrays.equals(coordinatorState, that.coordinatorState) && subtasks.equals(that.subtasks);
    }

    @Override
    public int hashCode() {
        return Objects.hash(uid, parallelism, Arrays.hashCode(coordinatorState), subtasks);
    }
}
