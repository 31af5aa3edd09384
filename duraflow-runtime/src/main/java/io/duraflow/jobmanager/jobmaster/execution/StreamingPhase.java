package io.duraflow.jobmanager.jobmaster.execution;

/**
 * Where a RUNNING streaming job is in its global restart cycle (a batch job stays NORMAL).
 * <pre>
 *   NORMAL -> CANCELLING_FOR_RESTART -> RESTORING -> NORMAL
 *      (failure)   (no execution active any more)  (latest checkpoint read and assigned)
 * </pre>
 * Only NORMAL schedules, plans checkpoints, hands operator events to the coordinators and counts
 * a failure as a new restart; in the other phases a failure is part of the restart under way.
 */
public enum StreamingPhase {
    NORMAL,
    /** Every active execution was told to cancel; waiting until none is active. */
    CANCELLING_FOR_RESTART,
    /**
     * Executions reset; waiting for the restart delay (after a failure), then reading the latest
     * completed checkpoint before deploying again.
     */
    RESTORING
}
