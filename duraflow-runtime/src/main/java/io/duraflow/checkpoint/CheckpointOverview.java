package io.duraflow.checkpoint;

import java.util.List;
import java.util.Optional;

/**
 * What {@code duraflow checkpoints ID} shows of a job's checkpoints, as its coordinator knows them
 * (since this JobMaster started: a new leader starts counting again).
 *
 * @param intervalMs the periodic checkpoint interval; 0: checkpoints only when asked
 * @param completed checkpoints and savepoints completed so far
 * @param failed checkpoints and savepoints that failed so far
 * @param latestCompleted the latest retained checkpoint (also one an earlier leader completed)
 * @param restoredFrom what the job's tasks last restored from; empty: empty state
 * @param history the last checkpoints, oldest first, in progress last
 */
public record CheckpointOverview(long intervalMs, long completed, long failed,
        Optional<CompletedCheckpoint> latestCompleted, Optional<CompletedCheckpoint> restoredFrom,
        List<CheckpointStats> history) {
    public CheckpointOverview {
        history = List.copyOf(history);
    }
}
