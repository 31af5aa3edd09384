package io.duraflow.checkpoint;

/**
 * Why a checkpoint did not complete. {@link #countsTowardTolerance()} says whether it counts
 * toward {@code execution.checkpointing.tolerable-failed-checkpoints} ({@link CheckpointFailureManager}).
 */
public enum CheckpointFailureReason {
    /** A task declined the checkpoint (not ready, e.g. still starting); counts. */
    DECLINED(true),
    /** A source (or another operator) said "not now": expected, never counts. */
    SNAPSHOT_UNAVAILABLE_SOFT(false),
    /** A source said its snapshot would be wrong: counts. */
    SNAPSHOT_UNAVAILABLE_HARD(true),
    /** Not complete within {@code execution.checkpointing.timeout}; counts. */
    EXPIRED(true),
    /** Writing state or metadata failed; counts. */
    IO_FAILURE(true),
    /** The asynchronous part of a task's snapshot failed; counts. */
    ASYNC_FAILURE(true),
    /** An operator coordinator (split enumerator) could not snapshot; counts. */
    COORDINATOR_FAILURE(true),
    /**
     * A task's incremental snapshot reuses a shared file that no retained or pending checkpoint
     * refers to (it may be deleted already: the task based its snapshot on a checkpoint that is
     * gone, e.g. after lost notifications); the checkpoint must not complete. Counts.
     */
    MISSING_SHARED_STATE(true),
    /** Writing the metadata or adding to the completed store failed; counts. */
    FINALIZE_FAILURE(true),
    /** Not every task was running when it was to be triggered: the job is (re)starting; does not count. */
    NOT_ALL_TASKS_RUNNING(false),
    /** A task of the job failed while the checkpoint was in progress: the job's failover handles that. */
    TASK_FAILURE(false),
    /** The job fails over (restores from a checkpoint): pending checkpoints are void; does not count. */
    JOB_FAILOVER(false),
    /** The coordinator stops (job ended, leadership lost); does not count. */
    COORDINATOR_SHUTDOWN(false),
    /** A newer checkpoint completed first; does not count. */
    SUBSUMED(false),
    /** A savepoint was asked for while one was in progress, or similar refusals of a trigger. */
    TRIGGER_REJECTED(false);

    private final boolean countsTowardTolerance;

    CheckpointFailureReason(boolean countsTowardTolerance) {
        this.countsTowardTolerance = countsTowardTolerance;
    }

    public boolean countsTowardTolerance() {
        return countsTowardTolerance;
    }
}
