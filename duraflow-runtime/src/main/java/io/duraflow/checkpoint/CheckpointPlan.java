package io.duraflow.checkpoint;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Who takes part in one checkpoint, decided by the JobMaster when it is triggered.
 *
 * @param toTrigger the tasks no barrier can reach through their inputs (the running sources, and
 *     tasks whose producers all finished): they get the trigger and emit the first barriers
 * @param toAcknowledge every running task of the job (triggered ones included): the checkpoint
 *     completes when all acknowledged; finished tasks take no part
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
