package io.duraflow.jobmanager.recovery;

import io.duraflow.jobmanager.events.proto.ProducedPartition;
import io.duraflow.plan.JobGraph;
import io.duraflow.plan.JobVertex;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/** Rule 2 of {@link AdoptionPlanner}: a batch job's adoption, over its replayed log and recovery plan. */
final class BatchAdoption {
    private final JobGraph graph;
    private final JobEventReplay replayed;
    private final RecoveryPlan recovery;
    private final ReportIndex reports;

    BatchAdoption(JobEventReplay replayed, RecoveryPlan recovery, List<ReportedTask> reports, Set<String> lost) {
        this.graph = replayed.graph();
        this.replayed = replayed;
        this.recovery = recovery;
        this.reports = new ReportIndex(reports, lost);
    }

    AdoptionPlan decide() {
        String contradiction = reports.contradiction(graph, replayed::parallelism, ReportedTask.BatchProgress.class);
        if (contradiction == null) {
            contradiction = finishedDisagree();
        }
        Map<ExecutionKey, TaskDecision> decisions = new TreeMap<>();
        Map<ExecutionKey, Integer> nextAttempts = new TreeMap<>();
        Map<Integer, Map<Integer, List<byte[]>>> adoptedSplits = new TreeMap<>();
        Set<ReportedTask> adopted = Collections.newSetFromMap(new IdentityHashMap<>());
        recovery.restored().forEach((key, done) -> decisions.put(key,
                new TaskDecision.AlreadyFinished(key, done.attempt(), done.tmId())));
        for (var entry : recovery.nextAttempts().entrySet()) {
            ExecutionKey key = entry.getKey();
            int logged = entry.getValue() - 1;  // -1: no event named the subtask
            int next = Math.max(logged, reports.highestAttempt(key)) + 1;
            ReportedTask current = logged < 0 ? null : reports.attempt(key, logged);
            String why = contradiction != null ? "adoption fell back: " + contradiction : whyNotAdopted(key, logged, current);
            if (why == null) {
                decisions.put(key, new TaskDecision.Adopt(key, current.attempt(), current.tmId()));
                adopted.add(current);
                JobVertex vertex = graph.vertex(key.vertex());
                List<byte[]> splits = replayed.committedSplits(key);
                if (vertex.isSource() && !splits.isEmpty()) {
                    adoptedSplits.computeIfAbsent(vertex.head().id(), n -> new TreeMap<>()).put(key.subtask(), splits);
                }
            } else {
                decisions.put(key, new TaskDecision.Restart(key, next, why));
                nextAttempts.put(key, next);
            }
        }
        List<ReportedTask> cancel = reports.toCancel(adopted);
        Map<ExecutionKey, Integer> logged = new TreeMap<>();
        for (ExecutionKey key : decisions.keySet()) {
            Integer highest = replayed.highestAttempt(key);
            if (highest != null) {
                logged.put(key, highest);
            }
        }
        AdoptionPlan.Outcome outcome = contradiction != null ? AdoptionPlan.Outcome.FALLBACK
                : AdoptionPlan.outcomeOf(decisions);
        List<String> notes = AdoptionPlan.notes(outcome, contradiction, decisions, cancel, reports.subtasks());
        return new AdoptionPlan(outcome, contradiction == null ? "" : contradiction, decisions, cancel,
                reports.highestAttempts(logged), adjusted(nextAttempts, adoptedSplits,
                        decisions.values().stream().filter(d -> d instanceof TaskDecision.Adopt).toList()), adoptedSplits, 0, Set.of(),
                notes);
    }

    /** Rule 2b: a report of an attempt the log records as finished must say what the log says. */
    private String finishedDisagree() {
        for (RestoredExecution done : recovery.restored().values()) {
            ReportedTask report = reports.attempt(done.key(), done.attempt());
            if (report == null) {
                continue;
            }
            if (report.state() != ReportedTask.State.FINISHED) {
                return report.name() + " is reported " + report.state() + ", but the log says it finished";
            }
            if (!report.tmId().equals(done.tmId())) {
                return report.name() + " is reported finished there, but the log says it finished on " + done.tmId();
            }
            Set<String> logged = new TreeSet<>();
            for (ProducedPartition partition : done.partitions()) {
                logged.add("edge " + partition.getEdgeId() + ": " + partition.getPartitionId());
            }
            Set<String> reported = new TreeSet<>();
            for (ReportedTask.OutputPartition partition : ((ReportedTask.BatchProgress) report.progress()).outputs()) {
                reported.add("edge " + partition.edgeId() + ": " + partition.partitionId());
            }
            if (!logged.equals(reported)) {
                return report.name() + " reports partitions " + reported + ", but the log says it produced " + logged;
            }
        }
        return null;
    }

    /** Rules 2c and 2d: why the subtask's current attempt cannot be adopted, or null if it can. */
    private String whyNotAdopted(ExecutionKey key, int logged, ReportedTask current) {
        int reported = reports.highestAttempt(key);
        if (current != null && reported > logged) {
            return "#" + reported + " was reported too: the old leader reset #" + logged
                    + ", and the reset is not in the log";
        }
        if (current == null) {
            if (reported > logged) {
                return "its attempt #" + reported + " is newer than the log's " + (logged < 0 ? "(none)" : "#" + logged)
                        + ": the reset that deployed it is not in the log";
            }
            if (logged < 0) {
                return "it never ran";
            }
            return reported < 0 ? "no TaskManager reported #" + logged
                    : "only #" + reported + " was reported, the log deployed #" + logged;
        }
        if (reports.isLost(current)) {
            return "its TaskManager " + current.tmId() + " is lost";
        }
        if (current.state() != ReportedTask.State.RUNNING && current.state() != ReportedTask.State.FINISHED) {
            return "#" + current.attempt() + " on " + current.tmId() + " ended " + current.state()
                    + " while no leader decided on it";
        }
        JobVertex vertex = graph.vertex(key.vertex());
        ReportedTask.BatchProgress progress = (ReportedTask.BatchProgress) current.progress();
        if (vertex.isSource()) {
            return whySourceNot(key, vertex, progress);
        }
        VertexPlan layout = replayed.plans().get(key.vertex());
        if (layout == null) {
            return "the layout of v" + key.vertex() + " is not in the log";
        }
        int[] bounds = layout.rangeBounds();
        for (int edgeId : vertex.inputs()) {
            String why = whyInputNot(edgeId, bounds[key.subtask()], bounds[key.subtask() + 1], progress);
            if (why != null) {
                return why;
            }
        }
        return null;
    }

    /** Rule 2d, inputs: exactly the kept partitions of the producer on this edge, with the logged range. */
    private String whyInputNot(int edgeId, int from, int to, ReportedTask.BatchProgress progress) {
        int producer = graph.edge(edgeId).producer();
        Set<String> kept = new TreeSet<>();
        for (int subtask = 0; subtask < replayed.parallelism(producer); subtask++) {
            RestoredExecution done = recovery.restored().get(new ExecutionKey(producer, subtask));
            if (done == null) {
                return "it reads v" + producer + "/" + subtask + " on edge " + edgeId
                        + ", which runs again: its output is not the one read";
            }
            for (ProducedPartition partition : done.partitions()) {
                if (partition.getEdgeId() == edgeId) {
                    kept.add(partition.getPartitionId() + " on " + done.tmId() + " [" + from + ", " + to + ")");
                }
            }
        }
        Set<String> read = new TreeSet<>();
        for (ReportedTask.InputRead input : progress.inputs()) {
            if (input.edgeId() == edgeId) {
                read.add(input.partitionId() + " on " + input.producerTmId() + " [" + input.from() + ", " + input.to()
                        + ")");
            }
        }
        if (!read.equals(kept)) {
            return "on edge " + edgeId + " it reads " + read + ", the recovery keeps " + kept;
        }
        return null;
    }

    /** Rule 2d, sources: the restored enumerator and the reader agree on the reader's splits. */
    private String whySourceNot(ExecutionKey key, JobVertex vertex, ReportedTask.BatchProgress progress) {
        int node = vertex.head().id();
        String source = "'" + vertex.head().name() + "' (node " + node + ")";
        if (replayed.withoutSnapshot(node)) {
            return "the enumerator of " + source + " cannot snapshot";
        }
        if (replayed.splitsChangedAfterState(key)) {
            return "its splits changed after the last recorded enumerator state of " + source;
        }
        List<String> held = sorted(progress.splits());
        List<String> logged = sorted(replayed.committedSplits(key));
        if (!held.equals(logged)) {
            return "its reader holds " + held.size() + " splits, the last recorded enumerator state of " + source
                    + " gives it " + logged.size() + (held.size() == logged.size() ? " others" : "");
        }
        return null;
    }

    private static List<String> sorted(List<byte[]> splits) {
        List<String> hex = new ArrayList<>();
        for (byte[] split : splits) {
            hex.add(HexFormat.of().formatHex(split));
        }
        Collections.sort(hex);
        return hex;
    }

    /** The recovery plan with adoption applied (see {@link AdoptionPlan#recovery()}). */
    private RecoveryPlan adjusted(Map<ExecutionKey, Integer> nextAttempts,
            Map<Integer, Map<Integer, List<byte[]>>> adoptedSplits, java.util.Collection<TaskDecision> decisionsAdopted) {
        Map<Integer, Map<Integer, List<byte[]>>> toReturn = new TreeMap<>();
        recovery.splitsToReturn().forEach((node, perSubtask) -> {
            Map<Integer, List<byte[]>> kept = new TreeMap<>(perSubtask);
            kept.keySet().removeAll(adoptedSplits.getOrDefault(node, Map.of()).keySet());
            if (!kept.isEmpty()) {
                toReturn.put(node, kept);
            }
        });
        // An adopted task that finished while no leader decided on it wrote its output before this
        // TaskManager registered, so that output is among the kept partitions: it stays.
        Set<String> adoptedOutputs = new TreeSet<>();
        for (TaskDecision decision : decisionsAdopted) {
            TaskDecision.Adopt adopt = (TaskDecision.Adopt) decision;
            ReportedTask report = reports.attempt(adopt.key(), adopt.attempt());
            if (report != null) {
                for (ReportedTask.OutputPartition output : ((ReportedTask.BatchProgress) report.progress()).outputs()) {
                    adoptedOutputs.add(output.partitionId());
                }
            }
        }
        Set<String> release = new java.util.LinkedHashSet<>(recovery.partitionsToRelease());
        release.removeAll(adoptedOutputs);
        return new RecoveryPlan(recovery.vertices(), recovery.restored(), nextAttempts, recovery.enumeratorStates(),
                toReturn, release, recovery.notes(), recovery.restoredSplits());
    }
}
