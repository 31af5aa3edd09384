package io.duraflow.jobmanager.recovery;

import com.google.protobuf.ByteString;
import io.duraflow.jobmanager.events.proto.CoordinatorState;
import io.duraflow.jobmanager.events.proto.ExecutionFinished;
import io.duraflow.jobmanager.events.proto.ExecutionRef;
import io.duraflow.jobmanager.events.proto.ExecutionsReset;
import io.duraflow.jobmanager.events.proto.JobEvent;
import io.duraflow.jobmanager.events.proto.ProducedPartition;
import io.duraflow.jobmanager.events.proto.SplitsAssigned;
import io.duraflow.jobmanager.events.proto.SplitsReturned;
import io.duraflow.jobmanager.events.proto.VertexInitialized;
import io.duraflow.plan.JobGraph;
import io.duraflow.plan.JobVertex;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Batch job recovery, the facts: the state of a job as its event log tells it, replayed event by
 * event by rule 1 of {@link RecoveryPlanner}, with the checks of rule 8 that throw when an event
 * does not fit the graph. The planner decides over this state (rules 2 to 7); nothing here
 * decides what is kept or runs again. Pure, like the planner.
 */
final class JobEventReplay {

    /** Splits a source subtask holds, and the attempt they were given to. */
    private static final class Held {
        final int attempt;
        final List<byte[]> splits = new ArrayList<>();

        Held(int attempt) {
            this.attempt = attempt;
        }
    }

    private final JobGraph graph;
    private final Map<Integer, Integer> sourceVertexOfNode = new HashMap<>();
    private final Map<Integer, VertexPlan> plans = new TreeMap<>();
    private final Map<ExecutionKey, ExecutionFinished> finished = new HashMap<>();
    /** The attempt each subtask was last reset to. */
    private final Map<ExecutionKey, Integer> resetTo = new HashMap<>();
    private final Map<ExecutionKey, Integer> highestAttempt = new HashMap<>();
    private final Map<Integer, byte[]> enumeratorStates = new TreeMap<>();
    /** Source nodes whose last CoordinatorState says their enumerator cannot snapshot. */
    private final Set<Integer> withoutSnapshot = new TreeSet<>();
    /** Splits held per source subtask, as of the last event. */
    private final Map<ExecutionKey, Held> held = new HashMap<>();
    /** Splits held per source subtask, as of its node's last CoordinatorState. */
    private final Map<ExecutionKey, List<byte[]>> committed = new HashMap<>();
    /** Per subtask, the TaskManager its last logged deployment went to, and that attempt. */
    private final Map<ExecutionKey, Map.Entry<Integer, String>> deployedTo = new HashMap<>();
    /** Source subtasks with split events after their node's last CoordinatorState. */
    private final Set<ExecutionKey> uncommitted = new HashSet<>();
    private final List<String> replayNotes = new ArrayList<>();
    private int eventCount;

    private JobEventReplay(JobGraph graph) {
        this.graph = graph;
        for (JobVertex vertex : graph.vertices()) {
            if (vertex.isSource()) {
                sourceVertexOfNode.put(vertex.head().id(), vertex.id());
            }
        }
    }

    /**
     * Replays the current run of {@code events}: those after the last {@code RunStarted}.
     *
     * @throws IllegalStateException if an event does not fit the graph (rule 8)
     */
    static JobEventReplay replay(JobGraph graph, List<JobEvent> events) {
        JobEventReplay replay = new JobEventReplay(graph);
        int first = currentRunStart(events);
        for (int i = first; i < events.size(); i++) {
            replay.apply(i, events.get(i));
        }
        replay.eventCount = events.size() - first;
        return replay;
    }

    /** The index of the first event of the current run: after the last {@code RunStarted}, else 0. */
    static int currentRunStart(List<JobEvent> events) {
        for (int i = events.size() - 1; i >= 0; i--) {
            if (events.get(i) != null && events.get(i).hasRunStarted()) {
                return i + 1;
            }
        }
        return 0;
    }

    // ------------------------------------------------------------------ replay

    private void apply(int index, JobEvent event) {
        if (event == null) {
            throw malformed(index, "is null");
        }
        switch (event.getEventCase()) {
            case VERTEX_INITIALIZED -> vertexInitialized(index, event.getVertexInitialized());
            case EXECUTION_FINISHED -> executionFinished(index, event.getExecutionFinished());
            case EXECUTIONS_RESET -> executionsReset(index, event.getExecutionsReset());
            case EXECUTIONS_DEPLOYED -> executionsDeployed(index, event.getExecutionsDeployed());
            case SPLITS_ASSIGNED -> splitsAssigned(index, event.getSplitsAssigned());
            case SPLITS_RETURNED -> splitsReturned(index, event.getSplitsReturned());
            case COORDINATOR_STATE -> coordinatorState(index, event.getCoordinatorState());
            default -> throw malformed(index, "has no known type (" + event.getEventCase() + ")");
        }
    }

    private void vertexInitialized(int index, VertexInitialized event) {
        int vertexId = event.getVertex();
        checkVertex(index, "VertexInitialized", vertexId);
        JobVertex vertex = graph.vertex(vertexId);
        int parallelism = event.getParallelism();
        if (parallelism < 1) {
            throw malformed(index, "(VertexInitialized) gives vertex " + vertexId + " parallelism " + parallelism);
        }
        if (vertex.parallelism() > 0 && parallelism != vertex.parallelism()) {
            throw malformed(index, "(VertexInitialized) gives vertex " + vertexId + " parallelism " + parallelism
                    + ", but the job graph fixes it at " + vertex.parallelism());
        }
        int[] bounds = event.getRangeBoundsList().stream().mapToInt(Integer::intValue).toArray();
        if (!vertex.isSource()) {
            if (bounds.length != parallelism + 1) {
                throw malformed(index, "(VertexInitialized) gives vertex " + vertexId + " parallelism " + parallelism
                        + " with " + bounds.length + " range bounds (needs " + (parallelism + 1) + ")");
            }
            for (int i = 1; i < bounds.length; i++) {
                if (bounds[i] < bounds[i - 1] || bounds[0] < 0) {
                    throw malformed(index, "(VertexInitialized) gives vertex " + vertexId
                            + " range bounds that are not ascending: " + Arrays.toString(bounds));
                }
            }
        }
        VertexPlan plan = new VertexPlan(vertexId, parallelism, bounds);
        VertexPlan previous = plans.put(vertexId, plan);
        if (previous != null && !sameLayout(previous, plan, vertex.isSource())) {
            int dropped = 0;
            for (var it = finished.keySet().iterator(); it.hasNext(); ) {
                if (it.next().vertex() == vertexId) {
                    it.remove();
                    dropped++;
                }
            }
            replayNotes.add("v" + vertexId + " was initialized again with parallelism " + parallelism + " (was "
                    + previous.parallelism() + "): its " + dropped + " finished executions do not count");
        }
        for (int subtask = 0; subtask < parallelism; subtask++) {
            seen(new ExecutionKey(vertexId, subtask), 0);
        }
    }

    private static boolean sameLayout(VertexPlan a, VertexPlan b, boolean source) {
        return a.parallelism() == b.parallelism() && (source || Arrays.equals(a.rangeBounds(), b.rangeBounds()));
    }

    private void executionFinished(int index, ExecutionFinished event) {
        ExecutionKey key = checkKey(index, "ExecutionFinished", event.getVertex(), event.getSubtask());
        int attempt = event.getAttempt();
        checkAttempt(index, "ExecutionFinished", key, attempt);
        List<Integer> outputs = graph.vertex(key.vertex()).outputs();
        for (ProducedPartition partition : event.getPartitionsList()) {
            if (!outputs.contains(partition.getEdgeId())) {
                throw malformed(index, "(ExecutionFinished) says " + key + "#" + attempt + " produced partition "
                        + partition.getPartitionId() + " on edge " + partition.getEdgeId()
                        + ", which vertex " + key.vertex() + " does not write (it writes " + outputs + ")");
            }
        }
        seen(key, attempt);
        int floor = resetTo.getOrDefault(key, 0);
        if (attempt < floor) {
            replayNotes.add("ignored a late finish of " + key + "#" + attempt + ": it was reset to #" + floor);
            return;
        }
        ExecutionFinished current = finished.get(key);
        if (current != null && current.getAttempt() > attempt) {
            replayNotes.add("ignored a late finish of " + key + "#" + attempt + ": #" + current.getAttempt()
                    + " finished already");
            return;
        }
        finished.put(key, event);
    }

    private void executionsReset(int index, ExecutionsReset event) {
        for (ExecutionRef ref : event.getExecutionsList()) {
            ExecutionKey key = checkKey(index, "ExecutionsReset", ref.getVertex(), ref.getSubtask());
            int attempt = ref.getNewAttempt();
            checkAttempt(index, "ExecutionsReset", key, attempt);
            seen(key, attempt);
            resetTo.merge(key, attempt, Math::max);
            ExecutionFinished current = finished.get(key);
            if (current != null && current.getAttempt() < attempt) {
                finished.remove(key);
            }
            Held splits = held.get(key);
            if (splits != null && splits.attempt < attempt) {
                held.remove(key);
                if (!splits.splits.isEmpty()) {
                    uncommitted.add(key);
                }
            }
        }
    }

    private void executionsDeployed(int index, io.duraflow.jobmanager.events.proto.ExecutionsDeployed event) {
        for (ExecutionRef ref : event.getExecutionsList()) {
            ExecutionKey key = checkKey(index, "ExecutionsDeployed", ref.getVertex(), ref.getSubtask());
            int attempt = ref.getNewAttempt();
            checkAttempt(index, "ExecutionsDeployed", key, attempt);
            seen(key, attempt);
            deployedTo.put(key, Map.entry(attempt, event.getTmId()));
        }
    }

    /**
     * TaskManagers that the log says run a subtask's current attempt: deployed there, not reset
     * since, not finished. A new leader waits for them to register, to adopt what runs there.
     */
    Set<String> taskManagersRunningTasks() {
        Set<String> running = new TreeSet<>();
        deployedTo.forEach((key, deployment) -> {
            if (deployment.getKey().equals(highestAttempt.get(key)) && !finished.containsKey(key)) {
                running.add(deployment.getValue());
            }
        });
        return running;
    }

    private void splitsAssigned(int index, SplitsAssigned event) {
        ExecutionKey key = checkKey(index, "SplitsAssigned", sourceVertex(index, "SplitsAssigned",
                event.getNodeId()), event.getSubtask());
        int attempt = event.getAttempt();
        checkAttempt(index, "SplitsAssigned", key, attempt);
        int floor = resetTo.getOrDefault(key, 0);
        if (attempt < floor) {
            throw malformed(index, "(SplitsAssigned) gives splits to " + key + "#" + attempt
                    + ", which was reset to #" + floor + " before");
        }
        Held splits = held.get(key);
        if (splits != null && splits.attempt > attempt) {
            throw malformed(index, "(SplitsAssigned) gives splits to " + key + "#" + attempt + " after #"
                    + splits.attempt + " got splits");
        }
        seen(key, attempt);
        if (splits == null || splits.attempt < attempt) {
            splits = new Held(attempt);
            held.put(key, splits);
        }
        for (ByteString split : event.getSplitsList()) {
            splits.splits.add(split.toByteArray());
        }
        uncommitted.add(key);
    }

    private void splitsReturned(int index, SplitsReturned event) {
        ExecutionKey key = checkKey(index, "SplitsReturned", sourceVertex(index, "SplitsReturned",
                event.getNodeId()), event.getSubtask());
        Held splits = held.remove(key);
        int count = splits == null ? 0 : splits.splits.size();
        if (count != event.getCount()) {
            replayNotes.add(key + " returned " + event.getCount() + " splits to the enumerator of node "
                    + event.getNodeId() + ", the log had it hold " + count);
        }
        uncommitted.add(key);
    }

    private void coordinatorState(int index, CoordinatorState event) {
        int node = event.getNodeId();
        int vertexId = sourceVertex(index, "CoordinatorState", node);
        if (event.getSnapshotUnsupported()) {
            enumeratorStates.remove(node);
            withoutSnapshot.add(node);
        } else {
            enumeratorStates.put(node, event.getState().toByteArray());
            withoutSnapshot.remove(node);
        }
        for (int subtask = 0; subtask < parallelism(vertexId); subtask++) {
            ExecutionKey key = new ExecutionKey(vertexId, subtask);
            Held splits = held.get(key);
            committed.put(key, splits == null ? List.of() : List.copyOf(splits.splits));
            uncommitted.remove(key);
        }
    }

    private void seen(ExecutionKey key, int attempt) {
        highestAttempt.merge(key, attempt, Math::max);
    }

    /** Decided parallelism, fixed parallelism, or -1 while neither is known. */
    int parallelism(int vertexId) {
        VertexPlan plan = plans.get(vertexId);
        if (plan != null) {
            return plan.parallelism();
        }
        int fixed = graph.vertex(vertexId).parallelism();
        return fixed > 0 ? fixed : -1;
    }

    private void checkVertex(int index, String type, int vertexId) {
        int count = graph.vertices().size();
        if (vertexId < 0 || vertexId >= count) {
            throw malformed(index, "(" + type + ") names vertex " + vertexId + ", but the job graph has " + count
                    + " vertices");
        }
    }

    private ExecutionKey checkKey(int index, String type, int vertexId, int subtask) {
        checkVertex(index, type, vertexId);
        int parallelism = parallelism(vertexId);
        if (parallelism < 0) {
            throw malformed(index, "(" + type + ") names v" + vertexId + "/" + subtask + ", but no earlier"
                    + " VertexInitialized decided the parallelism of vertex " + vertexId);
        }
        if (subtask < 0 || subtask >= parallelism) {
            throw malformed(index, "(" + type + ") names subtask " + subtask + " of vertex " + vertexId
                    + ", which has " + parallelism + " subtasks");
        }
        return new ExecutionKey(vertexId, subtask);
    }

    private static void checkAttempt(int index, String type, ExecutionKey key, int attempt) {
        if (attempt < 0) {
            throw malformed(index, "(" + type + ") names attempt " + attempt + " of " + key);
        }
    }

    private int sourceVertex(int index, String type, int node) {
        Integer vertexId = sourceVertexOfNode.get(node);
        if (vertexId == null) {
            throw malformed(index, "(" + type + ") names plan node " + node + ", which is not a source (sources: "
                    + new TreeSet<>(sourceVertexOfNode.keySet()) + ")");
        }
        return vertexId;
    }

    private static IllegalStateException malformed(int index, String what) {
        return new IllegalStateException("job event #" + index + " " + what
                + "; the event log does not fit the job graph");
    }

    // ------------------------------------------------------------------ the replayed state

    JobGraph graph() {
        return graph;
    }

    /** How many events were replayed (those of the current run). */
    int eventCount() {
        return eventCount;
    }

    /** The latest vertex plan per vertex id, ascending. */
    Map<Integer, VertexPlan> plans() {
        return Collections.unmodifiableMap(plans);
    }

    /** The recorded finished attempt per subtask. */
    Map<ExecutionKey, ExecutionFinished> finished() {
        return Collections.unmodifiableMap(finished);
    }

    /** The highest attempt any event named for the subtask, or null if none did. */
    Integer highestAttempt(ExecutionKey key) {
        return highestAttempt.get(key);
    }

    /** The latest enumerator state per source node, ascending. */
    Map<Integer, byte[]> enumeratorStates() {
        return Collections.unmodifiableMap(enumeratorStates);
    }

    /** Whether the source node's last {@code CoordinatorState} says its enumerator cannot snapshot. */
    boolean withoutSnapshot(int node) {
        return withoutSnapshot.contains(node);
    }

    /** The splits the source subtask holds as of its node's last {@code CoordinatorState}. */
    List<byte[]> committedSplits(ExecutionKey key) {
        return committed.getOrDefault(key, List.of());
    }

    /** Whether splits were assigned to or returned by the source subtask after its node's last state. */
    boolean splitsChangedAfterState(ExecutionKey key) {
        return uncommitted.contains(key);
    }

    /** What replay ignored or dropped, for the plan's notes. */
    List<String> notes() {
        return Collections.unmodifiableList(replayNotes);
    }
}
