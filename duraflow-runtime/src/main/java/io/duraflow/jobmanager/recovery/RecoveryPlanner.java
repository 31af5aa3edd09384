package io.duraflow.jobmanager.recovery;

import io.duraflow.jobmanager.events.proto.ExecutionFinished;
import io.duraflow.jobmanager.events.proto.JobEvent;
import io.duraflow.jobmanager.events.proto.ProducedPartition;
import io.duraflow.plan.JobGraph;
import io.duraflow.plan.JobVertex;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Batch job recovery, the decisions: from a job's graph, its replayed job event log and the
 * partitions that live TaskManagers still hold, what a new leader takes over as finished and what
 * runs again. Pure: no I/O, no clock, the same input always gives the same plan.
 *
 * <h2>1. Replay, in log order</h2>
 * Carried out by {@link JobEventReplay}; the other rules decide over the state it leaves. Replay
 * starts after the last {@code RunStarted} event, if any: the events before it describe a run that
 * was abandoned for a full restart.
 * <ul>
 *   <li>{@code VertexInitialized} sets the vertex's {@link VertexPlan}; a later one for the same
 *       vertex replaces it. If the later one lays the vertex out differently (another parallelism,
 *       or other ranges of a non-source vertex), the vertex's recorded finished attempts are
 *       dropped: they read other key ranges. Because the JobMaster creates a vertex's executions
 *       as attempt 0 and deploys them right after logging this event, it counts as having seen
 *       attempt 0 of every subtask of the vertex (see rule 4).
 *   <li>{@code ExecutionFinished} records the finished attempt of (vertex, subtask), replacing an
 *       older one; one older than the recorded finished attempt, or older than the attempt the
 *       subtask was last reset to, is ignored (a late event never revives an old attempt).
 *   <li>{@code ExecutionsReset(new_attempt)} drops a recorded finished attempt below {@code
 *       new_attempt} and raises the subtask's known attempt. On a source subtask it also drops
 *       the splits held by attempts below {@code new_attempt}: they went back to the enumerator
 *       (a {@code SplitsReturned} said so already, or a recovering leader gave them back).
 *   <li>{@code SplitsAssigned(node, subtask, attempt, splits)} adds the splits to those held by
 *       the source subtask; splits held by an older attempt are dropped first (same reason). An
 *       assignment to an attempt older than one that already got splits, or than the subtask's
 *       last reset, is malformed.
 *   <li>{@code SplitsReturned(node, subtask)} clears the subtask's held splits.
 *   <li>{@code CoordinatorState(node)} keeps the latest enumerator state per source node, and
 *       fixes which splits the subtasks hold <em>as of that state</em>. Split bookkeeping is
 *       always read as of the node's last state: an assignment or return logged after it (a torn
 *       log tail) is not reflected in the state, so it is not reflected in the plan either. One
 *       with {@code snapshot_unsupported} fixes the bookkeeping the same way, but says that the
 *       node's enumerator cannot snapshot: the node has no state (see rule 5a) until a later
 *       {@code CoordinatorState} brings one.
 * </ul>
 *
 * <h2>2. Availability</h2>
 * A recorded finished execution is <em>available</em> if, for every output edge of its vertex,
 * it recorded a partition and {@code availablePartitions} maps that partition id to the very
 * TaskManager the execution recorded (consumers are told that location). An execution without
 * output edges (a sink) is available.
 *
 * <h2>3. What is kept</h2>
 * Vertices are walked from the last to the first (vertex ids are topological, so consumers are
 * decided before their producers). A subtask is RESTORED (taken over as finished, not run again)
 * iff
 * <ul>
 *   <li>it has a recorded finished attempt,
 *   <li>its vertex has a {@link VertexPlan}, or is a source (fixed parallelism from the graph),
 *   <li>for a source subtask: no split was assigned or returned after the node's last recorded
 *       enumerator state (otherwise the state and the split it read disagree), and
 *   <li>it is available, or every subtask of every consumer vertex of its output edges is
 *       restored (a consumer vertex without a {@link VertexPlan} counts as not restored).
 * </ul>
 * So only unfinished executions and the producers of missing partitions that they still need run
 * again; a producer whose consumers all finished is not re-run even if its partition is gone.
 *
 * <h2>4. Attempt numbers</h2>
 * Every subtask of every vertex with known parallelism (a {@link VertexPlan}, or fixed in the
 * graph) that is not restored runs as (highest attempt seen for it in any event) + 1, or as 0 if
 * no event ever named it. A new attempt number never repeats an earlier one, so neither its
 * partition ids nor its messages can be mistaken for those of an attempt of the dead leader.
 * Vertices whose parallelism is still undecided get nothing: they are scheduled as usual.
 *
 * <h2>5. Sources</h2>
 * For each source subtask (source node id = {@code JobVertex.head().id()}) that is not restored,
 * the splits it held (rule 1) go to {@code splitsToReturn[node][subtask]}; the JobMaster gives
 * them back to the enumerator restored from {@code enumeratorStates[node]}. A source without a
 * recorded state starts a fresh enumerator and has nothing to give back. Splits of restored
 * source subtasks were consumed; they are listed in {@code restoredSplits}, for the JobMaster to
 * register as assigned, so that a later reset of such a subtask (its output lost after the
 * recovery) gives them back. A recovering JobMaster logs the give-back as {@code SplitsReturned}
 * and an {@code ExecutionsReset} for the re-run subtasks (it drops their old splits, rule 1); the
 * next {@code CoordinatorState} (logged before the next source finish) commits them.
 *
 * <p><b>5a. Sources without snapshots.</b> A source node whose last {@code CoordinatorState} is
 * {@code snapshot_unsupported} cannot continue from where it was: it is restored entirely (every
 * subtask restored by rule 3; its splits go to {@code restoredSplits} as above) or not at all. If
 * any of its subtasks runs again, all of them do, as (highest attempt seen) + 1, with a new
 * enumerator: no {@code enumeratorStates} entry, nothing in {@code splitsToReturn} or {@code
 * restoredSplits}, and the outputs of its finished attempts are released (rule 6). But if a
 * subtask of a consumer vertex of that source is restored, it read the old output, and the new
 * one may put records in other subpartitions (a REBALANCE edge): the planner then throws {@link
 * IllegalStateException}, and the job runs again from the start rather than give a wrong result.
 * (Consumers are decided before their producers, rule 3, so this is known when the source is.)
 * A JobMaster restoring such a source whole gives its coordinator an enumerator without splits:
 * a new one would hand out every split again when a restored subtask runs again later.
 *
 * <h2>6. Partitions to release</h2>
 * Every partition in {@code availablePartitions} that is not a recorded output of a restored
 * execution on the TaskManager it was recorded on: outputs of finished attempts that run again,
 * and partitions that no recorded finished attempt produced (stale attempts, old resets).
 *
 * <h2>7. Notes</h2>
 * Short lines for the log and the demo, in this order: a summary, what replay ignored or dropped,
 * one line per subtask ("v0/3#0 restored on tm-x", "v1/0 runs again as #2: its partition ... on
 * tm-y is lost"), splits given back, partitions released.
 *
 * <h2>8. Malformed logs, and what cannot be recovered</h2>
 * An event that does not fit the graph (vertex, subtask, edge or source node out of range, a
 * subtask of a vertex whose parallelism was never decided, a negative attempt, a plan that
 * contradicts the graph, an event with no type) throws {@link IllegalStateException} naming the
 * event, and so does a source that cannot be recovered (rule 5a); the caller then falls back to
 * a full restart.
 */
public final class RecoveryPlanner {

    private RecoveryPlanner() {}

    /**
     * Decides the recovery of a job.
     *
     * @param graph               the job's graph, compiled as when it was first submitted
     * @param events              the job event log, in the order it was written
     * @param availablePartitions partition id -> id of a live TaskManager that still holds it
     * @throws IllegalStateException if an event does not fit the graph, or a source without
     *     snapshots cannot be recovered (rule 5a)
     */
    public static RecoveryPlan plan(JobGraph graph, List<JobEvent> events, Map<String, String> availablePartitions) {
        Objects.requireNonNull(graph, "graph");
        Objects.requireNonNull(events, "events");
        Objects.requireNonNull(availablePartitions, "availablePartitions");
        return new Decisions(JobEventReplay.replay(graph, events)).decide(availablePartitions);
    }

    /** {@link #plan(JobGraph, List, Map)} over a log already replayed (the {@link AdoptionPlanner} needs both). */
    static RecoveryPlan plan(JobEventReplay replayed, Map<String, String> availablePartitions) {
        return new Decisions(replayed).decide(availablePartitions);
    }

    /** Rules 2 to 7, over the state the events left (rule 1, {@link JobEventReplay}). */
    private static final class Decisions {
        private final JobGraph graph;
        private final JobEventReplay replayed;

        Decisions(JobEventReplay replayed) {
            this.graph = replayed.graph();
            this.replayed = replayed;
        }

        RecoveryPlan decide(Map<String, String> available) {
            int eventCount = replayed.eventCount();
            int vertexCount = graph.vertices().size();
            boolean[][] restoredFlags = new boolean[vertexCount][];
            Map<ExecutionKey, RestoredExecution> restored = new TreeMap<>();
            Map<ExecutionKey, Integer> nextAttempts = new TreeMap<>();
            Map<ExecutionKey, String> decisionNotes = new TreeMap<>();

            for (int vertexId = vertexCount - 1; vertexId >= 0; vertexId--) {
                JobVertex vertex = graph.vertex(vertexId);
                int parallelism = replayed.parallelism(vertexId);
                if (parallelism < 0) {
                    continue;
                }
                boolean laidOut = replayed.plans().containsKey(vertexId) || vertex.isSource();
                boolean[] flags = new boolean[parallelism];
                Boolean consumersRestored = null;
                for (int subtask = 0; subtask < parallelism; subtask++) {
                    ExecutionKey key = new ExecutionKey(vertexId, subtask);
                    ExecutionFinished done = replayed.finished().get(key);
                    String why = null;
                    String restoredNote = null;
                    if (done == null) {
                        why = replayed.highestAttempt(key) != null ? "it did not finish" : "it never ran";
                    } else if (!laidOut) {
                        why = "the parallelism and ranges of v" + vertexId + " were not recorded";
                    } else if (replayed.splitsChangedAfterState(key)) {
                        why = "its splits changed after the last recorded enumerator state";
                    } else {
                        String lost = lostPartition(done, vertex, available);
                        if (lost == null) {
                            restoredNote = "";
                        } else {
                            if (consumersRestored == null) {
                                consumersRestored = consumersRestored(vertex, restoredFlags);
                            }
                            if (consumersRestored) {
                                restoredNote = " (its partition " + lost + " is lost, but every consumer finished)";
                            } else {
                                why = "its partition " + lost + " is lost";
                            }
                        }
                    }
                    if (why == null) {
                        flags[subtask] = true;
                        restored.put(key, new RestoredExecution(key, done.getAttempt(), done.getTmId(),
                                done.getTmAddress(), done.getPartitionsList(), done.getCollectedList(),
                                done.getRecordsIn(), done.getRecordsOut()));
                        decisionNotes.put(key, key + "#" + done.getAttempt() + " restored on " + done.getTmId()
                                + restoredNote);
                    } else {
                        Integer highest = replayed.highestAttempt(key);
                        int attempt = highest == null ? 0 : highest + 1;
                        nextAttempts.put(key, attempt);
                        decisionNotes.put(key, key + (highest == null ? " runs as #" : " runs again as #") + attempt
                                + ": " + why);
                    }
                }
                if (vertex.isSource() && replayed.withoutSnapshot(vertex.head().id())) {
                    keepWholeOrRunAgain(vertex, flags, restoredFlags, restored, nextAttempts, decisionNotes);
                }
                restoredFlags[vertexId] = flags;
            }

            Map<Integer, Map<Integer, List<byte[]>>> splitsToReturn = new TreeMap<>();
            Map<Integer, Map<Integer, List<byte[]>>> restoredSplits = new TreeMap<>();
            List<String> splitNotes = new ArrayList<>();
            int returnedSplits = 0;
            for (JobVertex vertex : graph.vertices()) {
                if (!vertex.isSource()) {
                    continue;
                }
                int node = vertex.head().id();
                boolean[] flags = restoredFlags[vertex.id()];
                if (replayed.withoutSnapshot(node) && !allTrue(flags)) {
                    splitNotes.add("the enumerator of '" + vertex.head().name() + "' (node " + node
                            + ") cannot snapshot: a new one hands out every split to the " + flags.length
                            + " subtasks of v" + vertex.id() + " again");
                    continue;
                }
                for (int subtask = 0; subtask < flags.length; subtask++) {
                    List<byte[]> splits = replayed.committedSplits(new ExecutionKey(vertex.id(), subtask));
                    if (flags[subtask] && !splits.isEmpty()) {
                        restoredSplits.computeIfAbsent(node, k -> new TreeMap<>()).put(subtask, splits);
                    } else if (!flags[subtask] && !splits.isEmpty()) {
                        splitsToReturn.computeIfAbsent(node, k -> new TreeMap<>()).put(subtask, splits);
                        returnedSplits += splits.size();
                        splitNotes.add(splits.size() + " splits of v" + vertex.id() + "/" + subtask
                                + " go back to the enumerator of '" + vertex.head().name() + "' (node " + node + ")");
                    }
                }
            }

            Set<String> kept = new HashSet<>();
            for (RestoredExecution execution : restored.values()) {
                for (ProducedPartition partition : execution.partitions()) {
                    if (execution.tmId().equals(available.get(partition.getPartitionId()))) {
                        kept.add(partition.getPartitionId());
                    }
                }
            }
            Map<String, ExecutionKey> producers = new HashMap<>();
            for (Map.Entry<ExecutionKey, ExecutionFinished> entry : replayed.finished().entrySet()) {
                for (ProducedPartition partition : entry.getValue().getPartitionsList()) {
                    producers.put(partition.getPartitionId(), entry.getKey());
                }
            }
            Set<String> release = new TreeSet<>();
            List<String> releaseNotes = new ArrayList<>();
            for (Map.Entry<String, String> entry : new TreeMap<>(available).entrySet()) {
                String partitionId = entry.getKey();
                if (kept.contains(partitionId)) {
                    continue;
                }
                release.add(partitionId);
                ExecutionKey producer = producers.get(partitionId);
                String why;
                if (producer == null) {
                    why = "no recorded finished attempt produced it";
                } else if (nextAttempts.containsKey(producer)) {
                    why = producer + " runs again";
                } else {
                    why = "it is not where " + producer + " recorded it";
                }
                releaseNotes.add("partition " + partitionId + " on " + entry.getValue() + " released: " + why);
            }

            List<String> notes = new ArrayList<>();
            notes.add("replayed " + eventCount + " events: " + restored.size() + " executions restored, "
                    + nextAttempts.size() + " to run, " + returnedSplits + " splits go back, " + release.size()
                    + " partitions released");
            notes.addAll(replayed.notes());
            notes.addAll(decisionNotes.values());
            notes.addAll(splitNotes);
            notes.addAll(releaseNotes);
            return new RecoveryPlan(replayed.plans(), restored, nextAttempts, replayed.enumeratorStates(),
                    splitsToReturn, release, notes, restoredSplits);
        }

        /**
         * Rule 5a: a source whose enumerator cannot snapshot is kept whole or runs again whole, with
         * a new enumerator; never while a consumer keeps what it read of the old output.
         */
        private void keepWholeOrRunAgain(JobVertex source, boolean[] flags, boolean[][] restoredFlags,
                Map<ExecutionKey, RestoredExecution> restored, Map<ExecutionKey, Integer> nextAttempts,
                Map<ExecutionKey, String> notes) {
            int rerun = 0;
            while (rerun < flags.length && flags[rerun]) {
                rerun++;
            }
            if (rerun == flags.length) {
                return;
            }
            String why = "the enumerator of '" + source.head().name() + "' cannot snapshot and v" + source.id() + "/"
                    + rerun + " runs again";
            String consumer = restoredConsumer(source, restoredFlags);
            if (consumer != null) {
                throw new IllegalStateException("source '" + source.head().name() + "' (v" + source.id()
                        + ") must be read again from the start with a new split enumerator (it cannot snapshot its"
                        + " state, and v" + source.id() + "/" + rerun + " runs again), but " + consumer
                        + " finished reading its old output and would be kept: old and new output would mix;"
                        + " the job must run again from the start");
            }
            for (int subtask = 0; subtask < flags.length; subtask++) {
                if (flags[subtask]) {
                    ExecutionKey key = new ExecutionKey(source.id(), subtask);
                    flags[subtask] = false;
                    restored.remove(key);
                    int attempt = replayed.highestAttempt(key) + 1;
                    nextAttempts.put(key, attempt);
                    notes.put(key, key + " runs again as #" + attempt + ": " + why);
                }
            }
        }

        /** A restored subtask of a consumer of the vertex's outputs, as "v1/0", or null if there is none. */
        private String restoredConsumer(JobVertex vertex, boolean[][] restoredFlags) {
            for (int edgeId : vertex.outputs()) {
                int consumer = graph.edge(edgeId).consumer();
                boolean[] flags = restoredFlags[consumer];
                for (int subtask = 0; flags != null && subtask < flags.length; subtask++) {
                    if (flags[subtask]) {
                        return "v" + consumer + "/" + subtask;
                    }
                }
            }
            return null;
        }

        private static boolean allTrue(boolean[] flags) {
            for (boolean flag : flags) {
                if (!flag) {
                    return false;
                }
            }
            return true;
        }

        /** The first missing output of a finished execution, described, or null if all are there. */
        private static String lostPartition(ExecutionFinished done, JobVertex vertex, Map<String, String> available) {
            for (int edgeId : vertex.outputs()) {
                ProducedPartition partition = null;
                for (ProducedPartition candidate : done.getPartitionsList()) {
                    if (candidate.getEdgeId() == edgeId) {
                        partition = candidate;
                        break;
                    }
                }
                if (partition == null) {
                    return "on edge " + edgeId + " (none recorded)";
                }
                String holder = available.get(partition.getPartitionId());
                if (holder == null) {
                    return partition.getPartitionId() + " on " + done.getTmId();
                }
                if (!holder.equals(done.getTmId())) {
                    return partition.getPartitionId() + " on " + done.getTmId() + " (" + holder + " has one)";
                }
            }
            return null;
        }

        /** Whether every subtask of every consumer of the vertex's outputs is restored. */
        private boolean consumersRestored(JobVertex vertex, boolean[][] restoredFlags) {
            for (int edgeId : vertex.outputs()) {
                int consumer = graph.edge(edgeId).consumer();
                boolean[] flags = restoredFlags[consumer];
                if (flags == null || !replayed.plans().containsKey(consumer)) {
                    return false;
                }
                for (boolean flag : flags) {
                    if (!flag) {
                        return false;
                    }
                }
            }
            return true;
        }
    }
}
