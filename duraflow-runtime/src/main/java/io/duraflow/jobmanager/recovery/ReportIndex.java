package io.duraflow.jobmanager.recovery;

import io.duraflow.plan.JobGraph;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.IntUnaryOperator;

/**
 * The reported tasks of one job by subtask, and the checks of {@link AdoptionPlanner}'s rule 1
 * that both kinds of job share.
 */
final class ReportIndex {
    private final Map<ExecutionKey, List<ReportedTask>> bySubtask = new TreeMap<>();
    private final List<ReportedTask> all;
    private final Set<String> lost;

    ReportIndex(List<ReportedTask> reports, Set<String> lost) {
        this.all = reports;
        this.lost = lost;
        for (ReportedTask report : reports) {
            bySubtask.computeIfAbsent(report.key(), k -> new ArrayList<>()).add(report);
        }
        bySubtask.values().forEach(list -> list.sort(Comparator.comparingInt(ReportedTask::attempt)
                .thenComparing(ReportedTask::tmId)));
    }

    /**
     * Rule 1: the first contradiction among the reports, or null.
     *
     * @param parallelism a vertex's known parallelism, or -1 while it is not known
     * @param kind        the kind of progress the job's tasks report
     */
    String contradiction(JobGraph graph, IntUnaryOperator parallelism, Class<? extends ReportedTask.Progress> kind) {
        int vertices = graph.vertices().size();
        for (ReportedTask report : all) {
            int vertex = report.key().vertex();
            if (vertex < 0 || vertex >= vertices) {
                return report.name() + " names vertex " + vertex + ", but the job graph has " + vertices + " vertices";
            }
            if (!kind.isInstance(report.progress())) {
                return report.name() + " reports " + describeKind(report.progress()) + " progress for a "
                        + (kind == ReportedTask.BatchProgress.class ? "batch" : "streaming") + " job";
            }
            if (report.attempt() < 0) {
                return report.name() + " names a negative attempt";
            }
            int known = parallelism.applyAsInt(vertex);
            if (known < 0) {
                continue;
            }
            if (report.key().subtask() < 0 || report.key().subtask() >= known) {
                return report.name() + " names a subtask of v" + vertex + ", which has " + known + " subtasks";
            }
            if (report.parallelism() != known) {
                return report.name() + " runs with parallelism " + report.parallelism() + ", but v" + vertex + " has "
                        + known;
            }
        }
        for (List<ReportedTask> reports : bySubtask.values()) {
            for (int i = 1; i < reports.size(); i++) {
                ReportedTask a = reports.get(i - 1);
                ReportedTask b = reports.get(i);
                if (a.attempt() == b.attempt()) {
                    return a.key() + "#" + a.attempt() + " is reported twice, by " + a.tmId() + " and " + b.tmId()
                            + " (an attempt is deployed once)";
                }
            }
        }
        return null;
    }

    private static String describeKind(ReportedTask.Progress progress) {
        return progress instanceof ReportedTask.BatchProgress ? "batch" : "streaming";
    }

    /** Every report of the subtask, by ascending attempt; empty if none. */
    List<ReportedTask> of(ExecutionKey key) {
        return bySubtask.getOrDefault(key, List.of());
    }

    /** The report of one attempt of the subtask, or null. */
    ReportedTask attempt(ExecutionKey key, int attempt) {
        for (ReportedTask report : of(key)) {
            if (report.attempt() == attempt) {
                return report;
            }
        }
        return null;
    }

    /** The highest attempt reported for the subtask, or -1. */
    int highestAttempt(ExecutionKey key) {
        List<ReportedTask> reports = of(key);
        return reports.isEmpty() ? -1 : reports.get(reports.size() - 1).attempt();
    }

    /** The highest attempt reported for any subtask of the job, or -1. */
    int highestAttempt() {
        int highest = -1;
        for (ReportedTask report : all) {
            highest = Math.max(highest, report.attempt());
        }
        return highest;
    }

    /** The subtasks something was reported for. */
    Set<ExecutionKey> subtasks() {
        return bySubtask.keySet();
    }

    boolean isLost(ReportedTask report) {
        return lost.contains(report.tmId());
    }

    /** Every RUNNING report on a live TaskManager that is not in {@code adopted}: rule 4's cancels. */
    List<ReportedTask> toCancel(Set<ReportedTask> adopted) {
        List<ReportedTask> cancel = new ArrayList<>();
        for (List<ReportedTask> reports : bySubtask.values()) {
            for (ReportedTask report : reports) {
                if (report.state() == ReportedTask.State.RUNNING && !isLost(report) && !adopted.contains(report)) {
                    cancel.add(report);
                }
            }
        }
        return cancel;
    }

    /** Per subtask, the highest reported attempt merged with {@code known} (e.g. the log's). */
    Map<ExecutionKey, Integer> highestAttempts(Map<ExecutionKey, Integer> known) {
        Map<ExecutionKey, Integer> highest = new HashMap<>(known);
        for (ExecutionKey key : bySubtask.keySet()) {
            highest.merge(key, highestAttempt(key), Math::max);
        }
        return highest;
    }
}
