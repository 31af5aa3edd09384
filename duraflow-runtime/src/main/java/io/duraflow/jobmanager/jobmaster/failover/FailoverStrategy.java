package io.duraflow.jobmanager.jobmaster.failover;

import io.duraflow.jobmanager.jobmaster.execution.Execution;
import io.duraflow.jobmanager.jobmaster.execution.ExecutionGraph;
import io.duraflow.jobmanager.jobmaster.JobMaster;

import java.util.List;

/**
 * Decides what a failure costs: which executions run again, or whether the job fails. A pure
 * function of the execution graph and the failure: it changes nothing and does no I/O; the
 * {@link JobMaster} applies the decision. Today's is {@link BatchFailoverStrategy}; streaming
 * will add a restart-from-checkpoint strategy.
 */
public interface FailoverStrategy {

    /** What went wrong. */
    sealed interface Failure permits TaskFailed, TaskManagerLost {}

    /**
     * The current attempt of {@code execution} failed (it is already FAILED or CANCELED).
     *
     * @param missingPartitionId the input partition it could not read, or null
     * @param nonRetriable       the task says running it again cannot succeed
     */
    record TaskFailed(Execution execution, String cause, String missingPartitionId, boolean nonRetriable)
            implements Failure {}

    /**
     * A TaskManager is gone; {@code lostActive} are the executions that held a slot on it (already
     * FAILED); its finished output is gone with it.
     */
    record TaskManagerLost(String tmId, List<Execution> lostActive) implements Failure {}

    /** What to do. */
    sealed interface Decision permits Restart, FailJob {}

    /** One execution to replace with a new attempt, and why (logged and recorded). */
    record Reset(Execution execution, String reason) {}

    /**
     * Reset these executions, in this order; {@code counted} says whether this uses one restart
     * of the budget. No resets and not counted: nothing to do.
     */
    record Restart(List<Reset> resets, boolean counted) implements Decision {}

    /** The job fails with this cause. */
    record FailJob(String cause) implements Decision {}

    Decision onFailure(ExecutionGraph graph, Failure failure, int restartsSoFar);
}
