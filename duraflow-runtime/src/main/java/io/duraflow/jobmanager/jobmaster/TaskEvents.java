package io.duraflow.jobmanager.jobmaster;

import io.duraflow.jobmanager.jobmaster.execution.Execution;
import io.duraflow.jobmanager.jobmaster.execution.ExecutionGraph;
import io.duraflow.jobmanager.jobmaster.execution.ExecutionState;
import io.duraflow.jobmanager.jobmaster.execution.JobSettings;

import io.duraflow.jobmanager.jobmaster.coordination.CoordinatorHolder;
import io.duraflow.jobmanager.jobmaster.scheduling.TaskManagerActions;

import io.duraflow.rpc.Rpc;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.OperatorEvent;
import io.duraflow.rpc.proto.TaskMetricsSample;
import io.duraflow.rpc.proto.TaskState;
import io.duraflow.rpc.proto.TaskStateUpdate;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a job goes on from what its tasks report: task state updates, lost TaskManagers,
 * operator events and heartbeats' samples, in the job's current {@link JobMasterState}. What a failure costs and what a
 * running or finished task means for checkpoints, the job's {@link JobMode} decides (a batch job
 * fails over the tasks it must, a streaming one restarts from its latest checkpoint); the {@link
 * JobMaster} owns the entries (main thread, guarded) and the {@link JobContext} the job's state.
 *
 * <p>Main thread only, like the JobMaster.
 */
final class TaskEvents {
    private static final Logger LOG = LoggerFactory.getLogger(TaskEvents.class);

    private final String jobId;
    private final JobSettings settings;
    private final ExecutionGraph executions;
    private final TaskManagerActions taskManagers;
    private final CoordinatorHolder coordinators;
    private final JobContext job;
    private final JobMode mode;
    /** Running streaming tasks' counters from the heartbeats, for the job's status. */
    private final TaskRates rates = new TaskRates();
    /** When the first task of this job master was reported running; 0 before. */
    private long firstTaskRunningAtMs;

    TaskEvents(JobContext job) {
        this.jobId = job.jobId();
        this.settings = job.settings();
        this.executions = job.executions();
        this.taskManagers = job.taskManagers();
        this.coordinators = job.coordinators();
        this.job = job;
        this.mode = job.mode();
    }

    private JobMasterState state() {
        return job.state();
    }

    TaskRates rates() {
        return rates;
    }

    long firstTaskRunningAtMs() {
        return firstTaskRunningAtMs;
    }

    /** Notes when the first task was reported running; before the update is handled, whatever comes of it. */
    void recordFirstRunning(TaskStateUpdate update) {
        if (firstTaskRunningAtMs == 0 && update.getState() == TaskState.RUNNING) {
            firstTaskRunningAtMs = job.clock().getAsLong();
        }
    }

    /** A heartbeat's sample of a running streaming task's counters; one of an attempt no longer current is ignored. */
    void onTaskMetrics(AttemptId attempt, TaskMetricsSample sample) {
        Execution[] subtasks = executions.executions(attempt.getVertex());
        if (subtasks != null && attempt.getSubtask() < subtasks.length
                && subtasks[attempt.getSubtask()].attempt() == attempt.getAttempt()) {
            rates.record(attempt.getVertex(), attempt.getSubtask(), attempt.getAttempt(), sample);
        }
    }

    /**
     * Whether {@code attempt} is its subtask's current attempt on {@code tmId}, deployed and not
     * asked to stop (DEPLOYING or RUNNING there), or FINISHED there: the TaskManager frees the
     * slot before it reports the finish, yet a heartbeat it built before may arrive after the
     * report. Any other attempt of this job that a TaskManager runs, it runs unknown to this job
     * master (see {@code Dispatcher#onTasksRunning}).
     */
    boolean runsOn(AttemptId attempt, String tmId) {
        Execution[] subtasks = executions.executions(attempt.getVertex());
        if (subtasks == null || attempt.getSubtask() < 0 || attempt.getSubtask() >= subtasks.length) {
            return false;
        }
        Execution execution = subtasks[attempt.getSubtask()];
        return execution.attempt() == attempt.getAttempt() && tmId.equals(execution.tmId())
                && (execution.state() == ExecutionState.DEPLOYING || execution.state() == ExecutionState.RUNNING
                        || execution.state() == ExecutionState.FINISHED);
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
                    job.nowRunning(execution, "TaskManager says running");
                }
            }
            case FINISHED -> taskFinished(execution, update);
            case FAILED -> job.taskFailed(execution, update.getFailure(), update.getMissingPartitionId().isEmpty()
                    ? null : update.getMissingPartitionId(), update.getNonRetriable());
            case CANCELED -> {
                taskManagers.stopped(execution, ExecutionState.CANCELED, "TaskManager says cancelled");
                if (state() == JobMasterState.CANCELLING) {
                    job.completeCancellationIfIdle();
                } else if (state() == JobMasterState.RUNNING && !mode.stoppedForRestart()) {
                    job.taskFailed(execution, "task was cancelled by its TaskManager", null, false);
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
        coordinators.subtaskFinished(execution.vertex(), execution.subtask());
        job.eventLog().executionFinished(execution, update);
        mode.executionFinished(execution);
        if (state() == JobMasterState.CANCELLING) {
            job.completeCancellationIfIdle();
            return;
        }
        if (mode.stoppedForRestart()) {
            return;
        }
        String tooMuchCollected = executions.checkCollectedBytes(settings.collectMaxBytes());
        if (tooMuchCollected != null) {
            job.terminate(JobMasterState.FAILED, tooMuchCollected);
            return;
        }
        if (executions.allFinished()) {
            job.terminate(JobMasterState.FINISHED, "");
            return;
        }
        job.scheduleNow();
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
                job.completeCancellationIfIdle();
            }
            return;
        }
        mode.taskManagerLost(tmId, lostActive);
    }

    void onOperatorEvent(AttemptId attempt, int nodeId, OperatorEvent event) throws Exception {
        Execution execution = executions.current(attempt);
        if (!job.runsNormally() || execution == null || !execution.state().isActive()) {
            return;
        }
        try {
            if (execution.state() == ExecutionState.DEPLOYING) {
                job.nowRunning(execution, "it sent an operator event");
            }
            coordinators.handleEvent(nodeId, attempt.getSubtask(), event);
        } catch (Exception e) {
            LOG.error("Job {}: operator coordinator of node {} failed", jobId, nodeId, e);
            job.terminate(JobMasterState.FAILED, "operator coordinator of node " + nodeId + " failed: "
                    + Rpc.describe(e));
        }
    }
}
