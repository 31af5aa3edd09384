package io.duraflow.jobmanager.recovery;

import io.duraflow.plan.ExchangeEdge;
import io.duraflow.plan.ExchangeMode;
import io.duraflow.plan.JobGraph;
import io.duraflow.plan.JobVertex;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/** Rule 3 of {@link AdoptionPlanner}: a streaming job's adoption, region by region. */
final class StreamingAdoption {
    private final JobGraph graph;
    private final StreamingCheckpointFacts checkpoints;
    private final ReportIndex reports;

    StreamingAdoption(JobGraph graph, StreamingCheckpointFacts checkpoints, List<ReportedTask> reports,
            Set<String> lost) {
        this.graph = graph;
        this.checkpoints = checkpoints;
        this.reports = new ReportIndex(reports, lost);
    }

    AdoptionPlan decide() {
        String contradiction = reports.contradiction(graph, vertex -> graph.vertex(vertex).parallelism(),
                ReportedTask.StreamingProgress.class);
        if (contradiction == null) {
            contradiction = storeContradiction();
        }
        long restore = checkpoints.restoreId();
        int next = reports.highestAttempt() + 1;
        Map<ExecutionKey, TaskDecision> decisions = new TreeMap<>();
        Set<ExecutionKey> notify = new TreeSet<>();
        Set<ReportedTask> adopted = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Set<Integer> region : regions()) {
            String why = contradiction != null ? "adoption fell back: " + contradiction : whyNotAdopted(region);
            for (int vertexId : region) {
                for (int subtask = 0; subtask < graph.vertex(vertexId).parallelism(); subtask++) {
                    ExecutionKey key = new ExecutionKey(vertexId, subtask);
                    if (why != null) {
                        decisions.put(key, new TaskDecision.Restart(key, next, "region " + region + " restarts from "
                                + (restore == 0 ? "empty state" : "checkpoint " + restore) + ": " + why));
                        continue;
                    }
                    ReportedTask current = current(key);
                    adopted.add(current);
                    if (current.state() == ReportedTask.State.FINISHED) {
                        decisions.put(key, new TaskDecision.AlreadyFinished(key, current.attempt(), current.tmId()));
                    } else {
                        decisions.put(key, new TaskDecision.Adopt(key, current.attempt(), current.tmId()));
                        long completed = ((ReportedTask.StreamingProgress) current.progress()).lastCompletedId();
                        if (completed < checkpoints.latestCompletedId()) {
                            notify.add(key);
                        }
                    }
                }
            }
        }
        List<ReportedTask> cancel = reports.toCancel(adopted);
        AdoptionPlan.Outcome outcome = contradiction != null ? AdoptionPlan.Outcome.FALLBACK
                : AdoptionPlan.outcomeOf(decisions);
        List<String> notes = AdoptionPlan.notes(outcome, contradiction, decisions, cancel, reports.subtasks());
        return new AdoptionPlan(outcome, contradiction == null ? "" : contradiction, decisions, cancel,
                reports.highestAttempts(Map.of()), null, Map.of(), restore, notify, notes);
    }

    /** Rule 3a: a report that claims a checkpoint the store does not have. */
    private String storeContradiction() {
        long latest = checkpoints.latestCompletedId();
        for (ExecutionKey key : reports.subtasks()) {
            for (ReportedTask report : reports.of(key)) {
                ReportedTask.StreamingProgress progress = (ReportedTask.StreamingProgress) report.progress();
                if (progress.lastCompletedId() > latest) {
                    return report.name() + " was told that checkpoint " + progress.lastCompletedId()
                            + " completed, but the store's latest is " + describe(latest);
                }
                long restored = progress.restoredCheckpointId();
                if (restored > latest && restored != checkpoints.initialRestoreId()) {
                    return report.name() + " restored checkpoint " + restored + ", which the store does not have"
                            + " (its latest is " + describe(latest) + ")";
                }
            }
        }
        return null;
    }

    private static String describe(long checkpoint) {
        return checkpoint == 0 ? "none" : Long.toString(checkpoint);
    }

    /** The highest reported attempt of the subtask on a live TaskManager, or null. */
    private ReportedTask current(ExecutionKey key) {
        List<ReportedTask> all = reports.of(key);
        for (int i = all.size() - 1; i >= 0; i--) {
            if (!reports.isLost(all.get(i))) {
                return all.get(i);
            }
        }
        return null;
    }

    /** Rule 3c: why the region cannot be adopted, or null if it can. */
    private String whyNotAdopted(Set<Integer> region) {
        long latest = checkpoints.latestCompletedId();
        long restore = checkpoints.restoreId();
        Set<String> runs = new TreeSet<>();
        for (int vertexId : region) {
            for (int subtask = 0; subtask < graph.vertex(vertexId).parallelism(); subtask++) {
                ExecutionKey key = new ExecutionKey(vertexId, subtask);
                List<ReportedTask> all = reports.of(key);
                ReportedTask current = current(key);
                if (current == null) {
                    return all.isEmpty() ? key + " was not reported"
                            : key + ": its TaskManager " + all.get(all.size() - 1).tmId() + " is lost";
                }
                if (current.attempt() < reports.highestAttempt(key)) {
                    return key + ": its newest attempt #" + reports.highestAttempt(key) + " is on a lost TaskManager";
                }
                if (current.state() == ReportedTask.State.FAILED || current.state() == ReportedTask.State.CANCELED) {
                    return current.name() + " ended " + current.state() + " while no leader was up";
                }
                ReportedTask.StreamingProgress progress = (ReportedTask.StreamingProgress) current.progress();
                runs.add(progress.runId());
                if (runs.size() > 1) {
                    return "tasks of " + runs.size() + " runs of the job were reported " + runs
                            + ": the old leader was restarting the job";
                }
                if (current.state() == ReportedTask.State.RUNNING && latest > 0
                        && progress.restoredCheckpointId() != latest && progress.lastAcknowledgedId() < latest) {
                    return current.name() + " holds no state of checkpoint " + latest + " (restored from "
                            + describe(progress.restoredCheckpointId()) + ", acknowledged up to "
                            + describe(progress.lastAcknowledgedId()) + ")";
                }
                int splits = progress.splitsReceivedSince(restore);
                if (splits > 0) {
                    return current.name() + " received " + splits + " splits after "
                            + (restore == 0 ? "it started" : "checkpoint " + restore)
                            + ": an enumerator restored from it would hand them out again";
                }
            }
        }
        return null;
    }

    /** Rule 3b: the vertices joined by pipelined edges, each region ascending, regions by their first vertex. */
    List<Set<Integer>> regions() {
        int count = graph.vertices().size();
        int[] parent = new int[count];
        for (int i = 0; i < count; i++) {
            parent[i] = i;
        }
        for (ExchangeEdge edge : graph.edges()) {
            if (edge.mode() == ExchangeMode.PIPELINED) {
                int a = root(parent, edge.producer());
                int b = root(parent, edge.consumer());
                parent[Math.max(a, b)] = Math.min(a, b);
            }
        }
        Map<Integer, Set<Integer>> byRoot = new TreeMap<>();
        for (JobVertex vertex : graph.vertices()) {
            byRoot.computeIfAbsent(root(parent, vertex.id()), r -> new TreeSet<>()).add(vertex.id());
        }
        return new ArrayList<>(byRoot.values());
    }

    private static int root(int[] parent, int vertex) {
        while (parent[vertex] != vertex) {
            parent[vertex] = parent[parent[vertex]];
            vertex = parent[vertex];
        }
        return vertex;
    }
}
