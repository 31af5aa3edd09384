package io.duraflow.checkpoint;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Who takes part in one checkpoint, decided by the JobMaster when it is triggered.
 *
 * @param toTrigger the source tasks, which get the trigger and emit the first barriers
 * @param toAcknowledge every task of the job (sources included): the checkpoint completes when all acknowledged
 * @param operatorParallelism every operator uid of the job and its parallelism, stateful or not, so
 *     a restore can tell "no state" from "unknown operator"
 */
public record CheckpointPlan(List<CheckpointTask> toTrigger, Set<CheckpointTask> toAcknowledge,
        Map<String, Integer> operatorParallelism) {
    public CheckpointPlan {
        toTrigger = List.copyOf(toTrigger);
        toAcknowledge = Set.copyOf(toAcknowledge);
        operatorParallelism = Map.copyOf(operatorParallelism);
        for (CheckpointTask task : toTrigger) {
            if (!toAcknowledge.contains(task)) {
                throw new IllegalArgumentException("triggered task " + task + " is not among those that acknowledge");
            }
        }
    }
}
