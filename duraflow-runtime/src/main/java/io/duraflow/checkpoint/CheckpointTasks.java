package io.duraflow.checkpoint;

import java.util.Collection;
import java.util.Optional;

/**
 * The coordinator's view of the job's tasks, implemented by the JobMaster over its execution graph
 * and the TaskManager gateways. Called on the main thread; the calls send messages and return.
 */
public interface CheckpointTasks {
    /** The tasks of a checkpoint triggered now, or empty if not every task is running (then none is taken). */
    Optional<CheckpointPlan> planCheckpoint();

    /**
     * Tells source tasks to take their part of a checkpoint and emit barriers. One message per
     * TaskManager for all of {@code tasks} on it.
     */
    void triggerCheckpoint(Collection<CheckpointTask> tasks, CheckpointTrigger trigger);

    /**
     * The checkpoint is durable: sinks commit what they prepared for it. One message per
     * TaskManager for all of {@code tasks} on it.
     *
     * @param lowestRetainedId for a checkpoint, the lowest id the job retains now (merged checkpoint
     *     files release what only older checkpoints used); 0 for a savepoint
     */
    void notifyCheckpointComplete(Collection<CheckpointTask> tasks, long checkpointId, long lowestRetainedId);

    /**
     * The checkpoint will never complete: aligned tasks release their inputs, writers drop what
     * they wrote for it. One message per TaskManager for all of {@code tasks} on it.
     */
    void notifyCheckpointAborted(Collection<CheckpointTask> tasks, long checkpointId, CheckpointFailure failure);
}
