package io.duraflow.jobmanager.jobmaster.checkpointing;

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
 *       data (Flink's default too). The message names every such operator uid. With {@code
 *       allowNonRestoredState} ({@code --allow-non-restored-state}) that state is dropped and
 *       logged instead.</li>
 *   <li>The checkpoint's max parallelism (its number of key groups) must be the job's: keyed state
 *       is cut into exactly that many key groups, which cannot be regrouped into another number.</li>
 * </ol>
 */
public final class CheckpointRestore {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(CheckpointRestore.class);

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

    /** As {@link #of(CompletedCheckpoint, JobGraph, int, boolean)} for the job's own checkpoint. */
    public static CheckpointRestore of(CompletedCheckpoint checkpoint, JobGraph graph) {
        return of(checkpoint, graph, checkpoint.maxParallelism(), false);
    }

    /**
     * @param jobMaxParallelism the job's {@code execution.max-parallelism} (rule 5)
     * @param allowNonRestoredState rule 4: drop state of operators the job does not have
     * @throws IllegalStateException if the checkpoint holds state of an operator the job does not
     *     have (rule 4), or has another max parallelism (rule 5)
     * @throws IllegalArgumentException if a parallelism is above the checkpoint's max parallelism
     */
    public static CheckpointRestore of(CompletedCheckpoint checkpoint, JobGraph graph, int jobMaxParallelism,
            boolean allowNonRestoredState) {
        if (checkpoint.maxParallelism() != jobMaxParallelism) {
            throw new IllegalStateException(checkpoint + " has max parallelism " + checkpoint.maxParallelism()
                    + " (its number of key groups), the job " + jobMaxParallelism + ": run it with -D "
                    + io.duraflow.config.CheckpointingOptions.MAX_PARALLELISM.key() + "="
                    + checkpoint.maxParallelism());
        }
        List<String> dropped = nonRestoredOperators(checkpoint, graph);
        if (!dropped.isEmpty() && !allowNonRestoredState) {
            throw new IllegalStateException(checkpoint + " holds state of operator" + (dropped.size() == 1 ? " " : "s ")
                    + String.join(", ", dropped.stream().map(uid -> "'" + uid + "'").toList()) + ", which job '"
                    + graph.jobName() + "' no longer has; give "
                    + (dropped.size() == 1 ? "that operator its uid" : "those operators their uids")
                    + " again, or pass --allow-non-restored-state to drop that state");
        }
        if (!dropped.isEmpty()) {
            LOG.warn("Restoring {}: dropping the state of operators {}, which job '{}' no longer has"
                    + " (--allow-non-restored-state)", checkpoint, dropped, graph.jobName());
        }
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
        return new CheckpointRestore(checkpoint.checkpointId(), byVertex);
    }

    /** Rule 4: the uids, sorted, of operators with state in the checkpoint that the job does not have. */
    static List<String> nonRestoredOperators(CompletedCheckpoint checkpoint, JobGraph graph) {
        Set<String> known = new HashSet<>();
        for (JobVertex vertex : graph.vertices()) {
            for (PlanNode node : vertex.nodes()) {
                known.add(graph.uid(node));
            }
        }
        List<String> unknown = new ArrayList<>();
        for (OperatorCheckpointState operator : checkpoint.sortedOperators().values()) {
            if (!known.contains(operator.uid())
                    && (operator.stateSize() > 0 || operator.coordinatorStateBytes().isPresent())) {
                unknown.add(operator.uid());
            }
        }
        return unknown;
    }

    /**
     * Checks, before a job is accepted, that it can restore {@code checkpoint} (rules 4 and 5, and
     * every parallelism within the max parallelism); the same checks the restore makes.
     *
     * @throws IllegalStateException or IllegalArgumentException with a one-line reason
     */
    public static void check(CompletedCheckpoint checkpoint, JobGraph graph, int jobMaxParallelism,
            boolean allowNonRestoredState) {
        of(checkpoint, graph, jobMaxParallelism, allowNonRestoredState);
    }

    /** What the subtask restores, decoded (tests compare it with what a deployment carries). */
    TaskStateSnapshot snapshot(int vertex, int subtask) {
        return byVertex.get(vertex).get(subtask);
    }

    /** The deployment's restore field for the subtask. */
    public TaskRestore taskRestore(int vertex, int subtask) {
        return TaskRestore.newBuilder().setCheckpointId(checkpointId)
                .setState(StateHandleCodec.toProto(snapshot(vertex, subtask))).build();
    }
}
