package io.duraflow.jobmanager.jobmaster.failover;

import io.duraflow.jobmanager.jobmaster.execution.Execution;
import io.duraflow.jobmanager.jobmaster.execution.ExecutionGraph;
import io.duraflow.jobmanager.jobmaster.execution.ExecutionState;

import io.duraflow.plan.JobGraph;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Failover of a batch job over blocking exchanges: only what failed, and the producers of
 * partitions that are gone, run again. Pure; its rules, in the order they are checked: see
 * docs/design/batch-recovery.md#batchfailoverstrategy.
 */
public final class BatchFailoverStrategy implements FailoverStrategy {

    @Override
    public Decision onFailure(ExecutionGraph graph, Failure failure, int restartsSoFar) {
        if (failure instanceof TaskFailed failed) {
            return taskFailed(graph, failed, restartsSoFar);
        }
        return taskManagerLost(graph, (TaskManagerLost) failure, restartsSoFar);
    }

    private Decision taskFailed(ExecutionGraph graph, TaskFailed failed, int restartsSoFar) {
        if (failed.nonRetriable()) {
            return new FailJob(failed.cause() + " (not retried: running the task again cannot succeed)");
        }
        String reason = "it failed: " + failed.cause();
        String missing = failed.missingPartitionId();
        if (missing != null && graph.producerOf(missing) == null) {
            return new Restart(List.of(new Reset(failed.execution(), reason)), false);
        }
        List<Reset> resets = new ArrayList<>();
        resets.add(new Reset(failed.execution(), reason));
        if (missing != null) {
            resets.add(new Reset(graph.producerOf(missing), "its partition " + missing + " is lost"));
        }
        return new Restart(resets, true);
    }

    private Decision taskManagerLost(ExecutionGraph graph, TaskManagerLost lost, int restartsSoFar) {
        Set<Execution> resetting = new HashSet<>(lost.lostActive());
        List<Execution> lostOutput = new ArrayList<>();
        JobGraph jobGraph = graph.jobGraph();
        for (int vertex = jobGraph.vertices().size() - 1; vertex >= 0; vertex--) {
            Execution[] subtasks = graph.executions(vertex);
            if (subtasks == null) {
                continue;
            }
            for (Execution execution : subtasks) {
                if (lost.tmId().equals(execution.tmId()) && execution.state() == ExecutionState.FINISHED
                        && outputStillNeeded(graph, execution, resetting)) {
                    lostOutput.add(execution);
                    resetting.add(execution);
                }
            }
        }
        if (lost.lostActive().isEmpty() && lostOutput.isEmpty()) {
            return new Restart(List.of(), false);
        }
        String cause = "TaskManager " + lost.tmId() + " was lost";
        List<Reset> resets = new ArrayList<>();
        for (Execution execution : lost.lostActive()) {
            resets.add(new Reset(execution, cause));
        }
        for (Execution execution : lostOutput) {
            resets.add(new Reset(execution, cause + " with its output"));
        }
        return new Restart(resets, true);
    }

    private static boolean outputStillNeeded(ExecutionGraph graph, Execution execution, Set<Execution> resetting) {
        JobGraph jobGraph = graph.jobGraph();
        for (int edgeId : jobGraph.vertex(execution.vertex()).outputs()) {
            Execution[] consumers = graph.executions(jobGraph.edge(edgeId).consumer());
            if (consumers == null) {
                return true;
            }
            for (Execution consumer : consumers) {
                if (consumer.state() != ExecutionState.FINISHED || resetting.contains(consumer)) {
                    return true;
                }
            }
        }
        return false;
    }
}
