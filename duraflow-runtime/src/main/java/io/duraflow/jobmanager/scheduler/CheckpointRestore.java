package io.duraflow.jobmanager.scheduler;

import io.duraflow.checkpoint.CompletedCheckpoint;
import io.duraflow.checkpoint.OperatorCheckpointState;
import io.duraflow.checkpoint.StateHandleCodec;
import io.duraflow.plan.JobGraph;
import io.duraflow.plan.JobVertex;
import io.duraflow.api.dag.PlanNode;
import io.duraflow.rpc.proto.TaskRestore;
import io.duraflow.state.OperatorSubtaskState;
import io.duraflow.state.TaskStateSnapshot;
import io.duraflow.state.rescale.StateRedistributor;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * What each task of a streaming job restores from a completed checkpoint, decided once per
 * restore: pure, no I/O.
 *
 * <ol>
 *   <li>An operator's state is found by its uid ({@link JobGraph#uid}), whatever vertex or chain
 *       it is in now, so state follows operators across job versions.</li>
 *   <li>Each operator's state is redistributed on its own with {@link StateRedistributor} from
 *       the parallelism it was checkpointed with to its vertex's parallelism now (the same
 *       parallelism gives each subtask exactly its own state back).</li>
 *   <li>Every task gets a {@link TaskRestore} with the checkpoint id, also when it gets no state,
 *       so its operators know they restore (sinks re-commit, sources resume).</li>
 *   <li>State of an operator the job no longer has is an error: dropping it silently would lose
 *       data (Flink's default too). The message says which operator.</li>
 * </ol>
 */
final class CheckpointRestore {
    private final long checkpointId;
    /** By vertex id: what each subtask restores. */
    private final Map<Integer, List<TaskStateSnapshot>> byVertex;

    private CheckpointRestore(long checkpointId, Map<Integer, List<TaskStateSnapshot>> byVertex) {
        this.checkpointId = checkpointId;
        this.byVertex = byVertex;
    }

    long checkpointId() {
        return checkpointId;
    }

    /**
     * @throws IllegalStateException if the checkpoint holds state of an operator the job does not have
     * @throws IllegalArgumentException if a parallelism is above the checkpoint's max parallelism
     */
    static CheckpointRestore of(CompletedCheckpoint checkpoint, JobGraph graph) {
        Set<String> known = new HashSet<>();
        Map<Integer, List<TaskStateSnapshot>> byVertex = new HashMap<>();
        for (JobVertex vertex : graph.vertices()) {
            int parallelism = vertex.parallelism();
            List<Map<String, OperatorSubtaskState>> tasks = new ArrayList<>();
            for (int i = 0; i < parallelism; i++) {
                tasks.add(new TreeMap<>());
            }
            for (PlanNode node : vertex.nodes()) {
                String uid = graph.uid(node);
                known.add(uid);
                OperatorCheckpointState operator = checkpoint.operators().get(uid);
                if (operator == null) {
                    continue;
                }
                List<OperatorSubtaskState> previous = new ArrayList<>();
                for (int i = 0; i < operator.parallelism(); i++) {
                    previous.add(operator.subtasks().getOrDefault(i, OperatorSubtaskState.EMPTY));
                }
                List<OperatorSubtaskState> assigned = StateRedistributor.redistribute(previous, parallelism,
                        checkpoint.maxParallelism());
                for (int i = 0; i < parallelism; i++) {
                    if (!assigned.get(i).isEmpty()) {
                        tasks.get(i).put(uid, assigned.get(i));
                    }
                }
            }
            byVertex.put(vertex.id(), tasks.stream().map(TaskStateSnapshot::new).toList());
        }
        for (OperatorCheckpointState operator : checkpoint.sortedOperators().values()) {
            if (!known.contains(operator.uid()) && operator.stateSize() > 0) {
                throw new IllegalStateException(checkpoint + " holds state of operator '" + operator.uid()
                        + "', which job '" + graph.jobName() + "' no longer has; give that operator its uid again");
            }
        }
        return new CheckpointRestore(checkpoint.checkpointId(), byVertex);
    }

    /** What the subtask restores, decoded (tests compare it with what a deployment carries). */
    TaskStateSnapshot snapshot(int vertex, int subtask) {
        return byVertex.get(vertex).get(subtask);
    }

    /** The deployment's restore field for the subtask. */
    TaskRestore taskRestore(int vertex, int subtask) {
        return TaskRestore.newBuilder().setCheckpointId(checkpointId)
                .setState(StateHandleCodec.toProto(snapshot(vertex, subtask))).build();
    }
}
