package io.duraflow.jobmanager.recovery;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a recovering JobMaster does with a job whose earlier leader died; made by {@link
 * RecoveryPlanner#plan}, which documents the rules. Every map iterates in ascending key order.
 *
 * @param vertices            recorded vertex plans (decided parallelism and ranges), by vertex id;
 *                            vertices without one (sources, or not decided yet) are absent
 * @param restored            executions taken over as FINISHED, by subtask
 * @param nextAttempts        the attempt number each other subtask of a vertex with known
 *                            parallelism runs as
 * @param enumeratorStates    the latest recorded enumerator state, by source plan node id; a
 *                            source without one starts a fresh enumerator (or, if its enumerator
 *                            cannot snapshot and all its subtasks are restored, one without splits)
 * @param splitsToReturn      by source node id, then subtask: splits held by subtasks that run
 *                            again, to give back to the enumerator restored from {@code
 *                            enumeratorStates}
 * @param partitionsToRelease partitions on live TaskManagers that nothing will read
 * @param notes               human-readable lines for the log and the demo
 * @param restoredSplits      by source node id, then subtask: the splits that restored source
 *                            subtasks read. Not for the enumerator: the JobMaster registers them
 *                            as assigned in its source coordinator, so that if such a subtask is
 *                            reset later (its output lost after the recovery) they go back
 */
public record RecoveryPlan(Map<Integer, VertexPlan> vertices, Map<ExecutionKey, RestoredExecution> restored,
        Map<ExecutionKey, Integer> nextAttempts, Map<Integer, byte[]> enumeratorStates,
        Map<Integer, Map<Integer, List<byte[]>>> splitsToReturn, Set<String> partitionsToRelease,
        List<String> notes, Map<Integer, Map<Integer, List<byte[]>>> restoredSplits) {

    public RecoveryPlan {
        vertices = Collections.unmodifiableMap(new LinkedHashMap<>(vertices));
        restored = Collections.unmodifiableMap(new LinkedHashMap<>(restored));
        nextAttempts = Collections.unmodifiableMap(new LinkedHashMap<>(nextAttempts));
        enumeratorStates = Collections.unmodifiableMap(new LinkedHashMap<>(enumeratorStates));
        splitsToReturn = copySplits(splitsToReturn);
        partitionsToRelease = Collections.unmodifiableSet(new LinkedHashSet<>(partitionsToRelease));
        notes = List.copyOf(notes);
        restoredSplits = copySplits(restoredSplits);
    }

    /** A plan without {@code restoredSplits} (e.g. hand-made in a test). */
    public RecoveryPlan(Map<Integer, VertexPlan> vertices, Map<ExecutionKey, RestoredExecution> restored,
            Map<ExecutionKey, Integer> nextAttempts, Map<Integer, byte[]> enumeratorStates,
            Map<Integer, Map<Integer, List<byte[]>>> splitsToReturn, Set<String> partitionsToRelease,
            List<String> notes) {
        this(vertices, restored, nextAttempts, enumeratorStates, splitsToReturn, partitionsToRelease, notes, Map.of());
    }

    private static Map<Integer, Map<Integer, List<byte[]>>> copySplits(Map<Integer, Map<Integer, List<byte[]>>> splits) {
        Map<Integer, Map<Integer, List<byte[]>>> copy = new LinkedHashMap<>();
        splits.forEach((node, perSubtask) -> {
            Map<Integer, List<byte[]>> inner = new LinkedHashMap<>();
            perSubtask.forEach((subtask, list) -> inner.put(subtask, List.copyOf(list)));
            copy.put(node, Collections.unmodifiableMap(inner));
        });
        return Collections.unmodifiableMap(copy);
    }

    /** Whether the subtask is taken over as finished. */
    public boolean isRestored(int vertex, int subtask) {
        return restored.containsKey(new ExecutionKey(vertex, subtask));
    }
}
