package io.duraflow.jobmanager.jobmaster;

import io.duraflow.jobmanager.jobmaster.execution.Execution;
import io.duraflow.jobmanager.jobmaster.execution.ExecutionGraph;
import io.duraflow.jobmanager.jobmaster.execution.ExecutionState;
import io.duraflow.jobmanager.jobmaster.execution.JobEventLog;
import io.duraflow.jobmanager.jobmaster.execution.JobSettings;
import io.duraflow.jobmanager.jobmaster.execution.StreamingPhase;

import io.duraflow.jobmanager.jobmaster.checkpointing.CheckpointTriggers;
import io.duraflow.jobmanager.jobmaster.coordination.CoordinatorHolder;
import io.duraflow.jobmanager.jobmaster.failover.FailoverHandler;
import io.duraflow.jobmanager.jobmaster.failover.FailoverStrategy;
import io.duraflow.jobmanager.jobmaster.failover.StreamingRestart;
import io.duraflow.jobmanager.jobmaster.scheduling.TaskManagerActions;

import io.duraflow.rpc.Rpc;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.OperatorEvent;
import io.duraflow.rpc.proto.TaskStateUpdate;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a job goes on from what its tasks report: task state updates, lost TaskManagers, operator
 * events and the end of a task's input, in the job's current {@link JobMasterState} and, for a
 * streaming job, its {@link StreamingPhase}. A batch failure goes to the {@link FailoverHandler},
 * a streaming one to the {@link StreamingRestart}; the {@link JobMaster} owns the entries (main
 * thread, guarded) and the job's state, and is told through {@link Job} to end or schedule.
 *
 * <p>Main thread only, like the JobMaster.
 */
final class TaskEvents {
    private static final Logger LOG = LoggerFactory.getLogger(TaskEvents.class);

    /**
     * What the task events need of the job master.
     *
     * @param state the job's current state
     * @param terminate ends the job in this terminal state with this cause ("" when it finished)
     * @param completeCancellationIfIdle ends a CANCELLING job once no task is active
     * @param schedule deploys what may run now
     * @param eventLog where the job's progress is recorded for recovery
     */
    record Job(Supplier<JobMasterState> state, BiConsumer<JobMasterState, String> terminate,
            Runnable completeCancellationIfIdle, Runnable schedule, Supplier<JobEventLog> eventLog) {}

    private final String jobId;
    private final JobSettings settings;
    private final boolean streaming;
    private final ExecutionGraph executions;
    private final TaskManagerActions taskManagers;
    private final CoordinatorHolder coordinators;
    private final FailoverHandler failover;
    private final StreamingRestart streamingRestart;
    private final CheckpointTriggers checkpointTriggers;
    private final Job job;

    TaskEvents(JobSettings settings, boolean streaming, ExecutionGraph executions, TaskManagerActions taskManagers,
            CoordinatorHolder coordinators, FailoverHandler failover, StreamingRestart streamingRestart,
            CheckpointTriggers checkpointTriggers, Job job) {
        this.jobId = executions.jobId();
        this.settings = settings;
        this.streaming = streaming;
        this.executions = executions;
        this.taskManagers = taskManagers;
        this.coordinators = coordinators;
        this.failover = failover;
        this.streamingRestart = streamingRestart;
        this.checkpointTriggers = checkpointTriggers;
        this.job = job;
    }

    private JobMasterState state() {
        return job.state().get();
    }

    private StreamingPhase phase() {
        return streamingRestart.phase();
    }

    private void terminate(JobMasterState terminal, String cause) {
        job.terminate().accept(terminal, cause);
    }

    private void completeCancellationIfIdle() {
        job.completeCancellationIfIdle().run();
    }

    private void scheduleNow() {
        job.schedule().run();
    }

    /** The TaskManager confirmed the attempt runs (or it sent an event, which says as much). */
    private void nowRunning(Execution execution, String reason) throws Exception {
        execution.transition(ExecutionState.RUNNING, reason);
        coordinators.subtaskRunning(execution.vertex(), execution.subtask());
        if (phase() == StreamingPhase.NORMAL) {
            checkpointTriggers.executionRunning();
        }
    }

    void onTaskStateUpdate(TaskStateUpdate update) throws Exception {
        AttemptId attempt = update.getAttempt();
        Execution execution = executions.current(attempt);
        if (execution == null) {
            LOG.info("Job {}: ignoring {} of superseded attempt {}", jobId, update.getState(), attempt);
            return;
        }
        if (!execution.state().isActive()) {
            LOG.info("Job {}: ignoring {} for {} in state {}", jobId, update.getState(), execution, execution.state());
            return;
        }
        switch (update.getState()) {
            case RUNNING -> {
                if (execution.state() == ExecutionState.DEPLOYING) {
                    nowRunning(execution, "TaskManager says running");
                }
            }
            case FINISHED -> taskFinished(execution, update);
            case FAILED -> taskFailed(execution, update.getFailure(), update.getMissingPartitionId().isEmpty()
                    ? null : update.getMissingPartitionId(), update.getNonRetriable());
            case CANCELED -> {
                taskManagers.stopped(execution, ExecutionState.CANCELED, "TaskManager says cancelled");
                if (state() == JobMasterState.CANCELLING) {
                    completeCancellationIfIdle();
                } else if (state() == JobMasterState.RUNNING && phase() == StreamingPhase.CANCELLING_FOR_RESTART) {
                    streamingRestart.completeIfIdle();
                } else if (state() == JobMasterState.RUNNING) {
                    taskFailed(execution, "task was cancelled by its TaskManager", null, false);
                }
            }
            default -> LOG.warn("Job {}: unexpected task state {} from {}", jobId, update.getState(), execution);
        }
    }

    private void taskFinished(Execution execution, TaskStateUpdate update) throws Exception {
        taskManagers.stopped(execution, ExecutionState.FINISHED, "TaskManager says finished");
        executions.finished(execution, update.getOutputsList(), update.getCollectedList(), update.getRecordsIn(),
                update.getRecordsOut());
        coordinators.logStateBeforeFinish(execution);
        job.eventLog().get().executionFinished(execution, update);
        if (streaming && state() == JobMasterState.RUNNING && phase() == StreamingPhase.NORMAL) {
            checkpointTriggers.executionFinished(execution);
        }
        if (state() == JobMasterState.CANCELLING) {
            completeCancellationIfIdle();
            return;
        }
        if (phase() == StreamingPhase.CANCELLING_FOR_RESTART) {
            streamingRestart.completeIfIdle();
            return;
        }
        String tooMuchCollected = executions.checkCollectedBytes(settings.collectMaxBytes());
        if (tooMuchCollected != null) {
            terminate(JobMasterState.FAILED, tooMuchCollected);
            return;
        }
        if (executions.allFinished()) {
            terminate(JobMasterState.FINISHED, "");
            return;
        }
        scheduleNow();
    }

    void taskFailed(Execution execution, String cause, String missingPartitionId, boolean nonRetriable) {
        if (execution.state().isActive()) {
            taskManagers.stopped(execution, ExecutionState.FAILED, cause);
        }
        if (state() == JobMasterState.CANCELLING) {
            completeCancellationIfIdle();
            return;
        }
        if (state() != JobMasterState.RUNNING) {
            return;
        }
        LOG.warn("Job {}: task {} failed: {}", jobId, execution, cause);
        if (streaming) {
            streamingRestart.restart("task " + execution + " failed: " + cause);
            return;
        }
        failedOver(new FailoverStrategy.TaskFailed(execution, cause, missingPartitionId, nonRetriable));
    }

    void onTaskManagerLost(String tmId) {
        if (state() != JobMasterState.RUNNING && state() != JobMasterState.CANCELLING) {
            return;
        }
        List<Execution> lostActive = executions.activeOn(tmId);
        for (Execution execution : lostActive) {
            execution.transition(ExecutionState.FAILED, "TaskManager " + tmId + " lost");
        }
        if (state() == JobMasterState.CANCELLING) {
            if (!lostActive.isEmpty()) {
                completeCancellationIfIdle();
            }
            return;
        }
        if (streaming) {
            if (!lostActive.isEmpty()) {
                streamingRestart.restart("TaskManager " + tmId + " was lost");
            }
            return;
        }
        failedOver(new FailoverStrategy.TaskManagerLost(tmId, lostActive));
    }

    /** Has the failover handler carry out what the strategy decides, and goes on from there. */
    private void failedOver(FailoverStrategy.Failure failure) {
        FailoverHandler.Outcome outcome = failover.onFailure(failure);
        if (outcome instanceof FailoverHandler.FailJob failJob) {
            terminate(JobMasterState.FAILED, failJob.cause());
        } else if (outcome instanceof FailoverHandler.ExecutionsReset) {
            scheduleNow();
        }
    }

    void onOperatorEvent(AttemptId attempt, int nodeId, OperatorEvent event) throws Exception {
        Execution execution = executions.current(attempt);
        if (state() != JobMasterState.RUNNING || phase() != StreamingPhase.NORMAL || execution == null
                || !execution.state().isActive()) {
            return;
        }
        try {
            if (execution.state() == ExecutionState.DEPLOYING) {
                nowRunning(execution, "it sent an operator event");
            }
            coordinators.handleEvent(nodeId, attempt.getSubtask(), event);
        } catch (Exception e) {
            LOG.error("Job {}: operator coordinator of node {} failed", jobId, nodeId, e);
            terminate(JobMasterState.FAILED, "operator coordinator of node " + nodeId + " failed: " + Rpc.describe(e));
        }
    }

    void onInputEnded(AttemptId attempt) throws Exception {
        Execution execution = executions.current(attempt);
        if (!streaming || state() != JobMasterState.RUNNING || phase() != StreamingPhase.NORMAL
                || execution == null || !execution.state().isActive()) {
            return;
        }
        if (execution.state() == ExecutionState.DEPLOYING) {
            nowRunning(execution, "its input ended");
        }
        checkpointTriggers.inputEnded(execution);
    }

    /** A deployment of the attempt {@code attempt} of {@code execution} to {@code tmId} failed. */
    void deploymentFailed(Execution execution, AttemptId attempt, String tmId, Throwable error) {
        if (executions.current(attempt) == execution && execution.state().isActive()) {
            taskFailed(execution, "deployment to " + tmId + " failed: " + error.getMessage(), null, false);
        }
    }

    void enumeratorFailed(Throwable error) {
        String cause = "a split enumerator failed: " + Rpc.describe(error);
        if (streaming) {
            // A restart brings every enumerator back to its checkpointed state.
            streamingRestart.restart(cause);
        } else {
            terminate(JobMasterState.FAILED, cause);
        }
    }
}
