package io.duraflow.jobmanager.jobmaster.execution;

import java.util.EnumSet;
import java.util.Set;

/**
 * The life of one attempt of one subtask, as the JobManager sees it.
 * <pre>
 *   CREATED -> DEPLOYING -> RUNNING -> FINISHED
 *                  |           |
 *                  +-----------+--> FAILED | CANCELING -> CANCELED
 * </pre>
 * A FINISHED, FAILED or CANCELED attempt is replaced by a new attempt in CREATED ({@link
 * Execution#reset}), never moved on.
 */
public enum ExecutionState {
    /** Waiting for its inputs, a slot, or the end of a restart delay. */
    CREATED,
    /** Sent to a TaskManager, not yet confirmed running. */
    DEPLOYING,
    /** Running on a TaskManager. */
    RUNNING,
    /** Done; its output partitions are on its TaskManager. */
    FINISHED,
    /** Ended with an error or was lost with its TaskManager. */
    FAILED,
    /** Asked to stop, not yet confirmed. */
    CANCELING,
    /** Stopped on request. */
    CANCELED;

    private Set<ExecutionState> next;

    static {
        CREATED.next = EnumSet.of(DEPLOYING, CANCELED);
        DEPLOYING.next = EnumSet.of(RUNNING, FINISHED, FAILED, CANCELING, CANCELED);
        RUNNING.next = EnumSet.of(FINISHED, FAILED, CANCELING, CANCELED);
        CANCELING.next = EnumSet.of(CANCELED, FAILED, FINISHED);
        FINISHED.next = EnumSet.noneOf(ExecutionState.class);
        FAILED.next = EnumSet.noneOf(ExecutionState.class);
        CANCELED.next = EnumSet.noneOf(ExecutionState.class);
    }

    public boolean canMoveTo(ExecutionState target) {
        return next.contains(target);
    }

    /** Holds a slot on a TaskManager. */
    public boolean isActive() {
        return this == DEPLOYING || this == RUNNING || this == CANCELING;
    }

    public boolean isTerminal() {
        return this == FINISHED || this == FAILED || this == CANCELED;
    }
}
