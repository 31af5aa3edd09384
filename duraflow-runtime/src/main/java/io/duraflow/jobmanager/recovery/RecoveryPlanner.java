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
 * partitions live TaskManagers still hold, what a new leader takes over as finished and what runs
 * again. Pure: no I/O, no clock, the same input always gives the same plan. Its rules (replay,
 * availability, what is kept, attempts, sources, releases, notes, malformed logs), numbered as
 * tests and code refer to them: see docs/design/batch-recovery.md#recoveryplanner.
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
