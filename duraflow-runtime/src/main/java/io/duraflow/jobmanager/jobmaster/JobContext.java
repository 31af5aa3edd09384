package io.duraflow.jobmanager.jobmaster;

import io.duraflow.jobmanager.jobmaster.execution.Execution;
import io.duraflow.jobmanager.jobmaster.execution.ExecutionGraph;
import io.duraflow.jobmanager.jobmaster.execution.ExecutionState;
import io.duraflow.jobmanager.jobmaster.execution.JobEventLog;
import io.duraflow.jobmanager.jobmaster.execution.JobSettings;

import io.duraflow.jobmanager.jobmaster.checkpointing.CheckpointRestore;
import io.duraflow.jobmanager.jobmaster.coordination.CoordinatorHolder;
import io.duraflow.jobmanager.jobmaster.scheduling.SchedulingDriver;
import io.duraflow.jobmanager.jobmaster.scheduling.SchedulingStrategy;
import io.duraflow.jobmanager.jobmaster.scheduling.TaskDeployments;
import io.duraflow.jobmanager.jobmaster.scheduling.TaskManagerActions;
import io.duraflow.jobmanager.resourcemanager.SlotPool;
import io.duraflow.jobmanager.resourcemanager.TaskManagerGateways;

import io.duraflow.mailbox.Mailbox;
import io.duraflow.plan.JobGraph;
import io.duraflow.rpc.Rpc;
import io.duraflow.rpc.proto.AttemptId;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a batch and a streaming job master share, and the moves they make the same way. Holds the
 * job's parts: its {@link ExecutionGraph}, operator coordinators ({@link CoordinatorHolder}), slots
 * and TaskManagers ({@link TaskManagerActions}), the {@link SchedulingDriver}, the event log, the
 * clock and the main thread; owns the job's {@link JobMasterState} (every change goes through
 * {@link #moveTo}); and starts, schedules, cancels, suspends and ends the job. Wherever batch and
 * streaming differ it asks the job's {@link JobMode}, which is created last, over this context
 * ({@link JobMode.Factory}); the parts created before call into the mode only once the job runs.
 *
 * <p>Main thread only: the {@link JobMaster}'s entries assert they run on {@link #mainThread()}
 * and run their handlers through {@link #guarded}.
 */
final class JobContext {
    /** The job's life is logged under the JobMaster's name, which log settings and tests select. */
    private static final Logger LOG = LoggerFactory.getLogger(JobMaster.class);

    /** What the job is, as it was submitted. */
    record Definition(String jobId, String jobClass, io.duraflow.rpc.proto.JobArtifact jar,
            Map<String, String> params, Map<String, String> config, JobGraph graph, JobSettings settings,
            long submittedAtMs) {}

    /**
     * What the job master runs on.
     *
     * @param sessionId the leadership session its deployments and checkpoint messages carry
     * @param mainThread the Dispatcher's main thread, which also runs its delays
     * @param clock the time in ms
     */
    record Services(String sessionId, SlotPool slots, TaskManagerGateways gateways, Mailbox mainThread,
            LongSupplier clock) {}

    /** A handler of the job master: whatever it throws fails the job (see {@link #guarded}). */
    interface Handler {
        void run() throws Exception;
    }

    private final Definition definition;
    private final Services services;
    /** Told once, when the job reached FINISHED, FAILED or CANCELED. */
    private final Runnable terminated;
    private final ExecutionGraph executions;
    private final CoordinatorHolder coordinators;
    private final TaskManagerActions taskManagers;
    private final SchedulingDriver scheduling;
    private final LeaderTakeover takeover = new LeaderTakeover();
    private final JobMode mode;
    private JobMasterState state = JobMasterState.CREATED;
    private JobEventLog eventLog = JobEventLog.NONE;
    private long endedAtMs;
    private String failure = "";
    /**
     * The cause of a split enumerator's failure handled before the job started (its periodic work
     * ends while the dispatcher still stores the job or a new leader waits for the kept tasks'
     * reports): the job fails over from it as it starts or is taken over.
     */
    private String enumeratorFailureBeforeStart;
    /** Whether TaskManagers keep running tasks when the leader goes ({@code taskmanager.leader-loss.timeout} > 0). */
    private boolean keepTasksForNextLeader;

    /**
     * @param terminated told once, when the job reached FINISHED, FAILED or CANCELED
     * @param modes builds the job's mode; called last, with this context complete
     */
    JobContext(Definition definition, Services services, Runnable terminated, JobMode.Factory modes) {
        this.definition = definition;
        this.services = services;
        this.terminated = terminated;
        String jobId = definition.jobId();
        this.executions = new ExecutionGraph(jobId, definition.graph());
        this.coordinators = new CoordinatorHolder(executions, this::eventLog, services.gateways(),
                services.mainThread(), this::enumeratorFailed);
        SchedulingStrategy strategy = modes.schedulingStrategy(executions, definition.settings(), this::eventLog);
        this.taskManagers = new TaskManagerActions(jobId, definition.graph(), services.slots(), services.gateways(),
                new TaskDeployments(services.sessionId(), definition.jobClass(), definition.jar(), definition.params(),
                        definition.config(), definition.settings(), executions, strategy::subpartitions,
                        this::restoreFrom, this::runId));
        this.scheduling = new SchedulingDriver(strategy, taskManagers, services.mainThread(), services.clock(),
                this::schedule, this::deploymentFailed, this::eventLog);
        this.mode = modes.create(this);
    }

    // ------------------------------------------------------------------ what the job is and runs on

    Definition definition() {
        return definition;
    }

    Services services() {
        return services;
    }

    String jobId() {
        return definition.jobId();
    }

    JobGraph graph() {
        return definition.graph();
    }

    JobSettings settings() {
        return definition.settings();
    }

    Mailbox mainThread() {
        return services.mainThread();
    }

    LongSupplier clock() {
        return services.clock();
    }

    ExecutionGraph executions() {
        return executions;
    }

    CoordinatorHolder coordinators() {
        return coordinators;
    }

    TaskManagerActions taskManagers() {
        return taskManagers;
    }

    SchedulingDriver scheduling() {
        return scheduling;
    }

    JobMode mode() {
        return mode;
    }

    LeaderTakeover takeover() {
        return takeover;
    }

    /** Where the job's progress is recorded for recovery. */
    JobEventLog eventLog() {
        return eventLog;
    }

    void eventLog(JobEventLog log) {
        this.eventLog = log;
    }

    void keepTasksForNextLeader(boolean keep) {
        this.keepTasksForNextLeader = keep;
    }

    JobMasterState state() {
        return state;
    }

    long endedAtMs() {
        return endedAtMs;
    }

    /** The cause of a FAILED job, or "". */
    String failure() {
        return failure;
    }

    /** The job is RUNNING and not in a restart: it schedules, plans checkpoints and takes operator events. */
    boolean runsNormally() {
        return state == JobMasterState.RUNNING && !mode.restarting();
    }

    boolean isRunning() {
        return state == JobMasterState.RUNNING;
    }

    void moveTo(JobMasterState target, String reason) {
        state = state.transitionTo(target, jobId(), reason);
        executions.changed();
    }

    /**
     * Runs a handler; whatever it throws fails the job with that cause, so that a fault never
     * leaves the job running with nobody driving it. A job that already ended (or left this
     * leader) cannot fail again: then the exception goes on to the caller.
     */
    void guarded(String what, Handler handler) {
        try {
            handler.run();
        } catch (Exception | LinkageError | AssertionError | StackOverflowError e) {
            if (state.isDeadEnd()) {
                if (e instanceof RuntimeException runtime) {
                    throw runtime;
                }
                if (e instanceof Error error) {
                    throw error;
                }
                throw new IllegalStateException("job " + jobId() + " had ended when " + what + " failed", e);
            }
            LOG.error("Job {}: failed while {}", jobId(), what, e);
            terminate(JobMasterState.FAILED, "JobManager failed while " + what + ": " + Rpc.describe(e));
        }
    }

    // ------------------------------------------------------------------ starting and scheduling

    /** Moves the created job to RUNNING and has the mode deploy its first tasks; guarded by the caller. */
    void start() throws Exception {
        moveTo(JobMasterState.RUNNING, "started");
        // Splits the enumerators handed out before the start, recorded after any RunStarted or recovery.
        coordinators.reportAssignments();
        LOG.info("Job {} ({}) running: {} vertices, fingerprint {}", jobId(), graph().jobName(),
                graph().vertices().size(), graph().fingerprint());
        String failedBefore = takeEnumeratorFailureBeforeStart();
        if (failedBefore != null) {
            // Fails the job, or restarts it (which also replaces the failed enumerator), instead of the first deployment.
            mode.enumeratorFailed(failedBefore);
            return;
        }
        mode.start();
    }

    /**
     * The cause of a split enumerator failure handled before the job started, or null; once: the
     * start, or a streaming job's take-over, fails over from it.
     */
    String takeEnumeratorFailureBeforeStart() {
        String cause = enumeratorFailureBeforeStart;
        enumeratorFailureBeforeStart = null;
        return cause;
    }

    /** Deploys what may run now, on the main thread, guarded (also when a restart delay ends). */
    void schedule() {
        mainThread().assertRunningInMailbox();
        guarded("scheduling", this::scheduleNow);
    }

    /** Deploys every task the scheduling strategy says may run, while the job runs normally. */
    void scheduleNow() {
        if (!runsNormally()) {
            return;
        }
        scheduling.schedule();
    }

    private CheckpointRestore restoreFrom() {
        return mode.restoreFrom();
    }

    private String runId() {
        return mode.runId();
    }

    // ------------------------------------------------------------------ failures

    /** The TaskManager confirmed the attempt runs (or it sent an event, which says as much). */
    void nowRunning(Execution execution, String reason) throws Exception {
        execution.transition(ExecutionState.RUNNING, reason);
        coordinators.subtaskRunning(execution.vertex(), execution.subtask());
        mode.executionRunning();
    }

    /** A task failed: its execution stops; a CANCELLING job may be done, a RUNNING one asks its mode. */
    void taskFailed(Execution execution, String cause, String missingPartitionId, boolean nonRetriable) {
        if (execution.state().isActive()) {
            taskManagers.stopped(execution, ExecutionState.FAILED, cause);
        }
        if (state == JobMasterState.CANCELLING) {
            completeCancellationIfIdle();
            return;
        }
        if (state != JobMasterState.RUNNING) {
            return;
        }
        LOG.warn("Job {}: task {} failed: {}", jobId(), execution, cause);
        mode.taskFailed(execution, cause, missingPartitionId, nonRetriable);
    }

    /** A deployment of the attempt {@code attempt} of {@code execution} to {@code tmId} failed. */
    private void deploymentFailed(Execution execution, AttemptId attempt, String tmId, Throwable error) {
        guarded("handling a failed deployment", () -> {
            if (executions.current(attempt) == execution && execution.state().isActive()) {
                taskFailed(execution, "deployment to " + tmId + " failed: " + error.getMessage(), null, false);
            }
        });
    }

    private void enumeratorFailed(Throwable error) {
        String cause = "a split enumerator failed: " + Rpc.describe(error);
        if (state == JobMasterState.CREATED) {
            // Not started: no mode can fail over yet (a streaming restart ignores a job that is not
            // RUNNING), so the failure waits for the start instead of being dropped.
            LOG.warn("Job {}: {}; the job fails over as it starts", jobId(), cause);
            if (enumeratorFailureBeforeStart == null) {
                enumeratorFailureBeforeStart = cause;
            }
            return;
        }
        guarded("handling a split enumerator's periodic work", () -> mode.enumeratorFailed(cause));
    }

    // ------------------------------------------------------------------ cancellation and the end

    void cancelNow() {
        if (state == JobMasterState.RUNNING || state == JobMasterState.CREATED) {
            moveTo(JobMasterState.CANCELLING, "cancelled by the user");
            for (Execution execution : executions.all()) {
                if (execution.state() == ExecutionState.DEPLOYING || execution.state() == ExecutionState.RUNNING) {
                    taskManagers.cancel(execution, "job cancelled");
                }
            }
            completeCancellationIfIdle();
        }
    }

    /** Ends a CANCELLING job once no task is active. */
    void completeCancellationIfIdle() {
        if (executions.active().isEmpty()) {
            terminate(JobMasterState.CANCELED, "cancelled by the user");
        }
    }

    /** Cancels every deploying or running task and frees its slot; no restart is pending after. */
    private void stopActiveExecutions(String reason) {
        scheduling.cancelWakeUp();
        taskManagers.stopAll(executions.active(), reason);
    }

    /**
     * This JobManager lost its leadership: stop the tasks (or leave them to the TaskManagers for the
     * next leader) and the coordinators without a result.
     */
    void suspend() {
        if (state.isDeadEnd()) {
            return;
        }
        if (keepTasksForNextLeader) {
            // The TaskManagers keep them for the next leader to adopt (taskmanager.leader-loss.timeout).
            scheduling.cancelWakeUp();
            taskManagers.forgetAll(executions.active(), "this JobManager no longer leads");
        } else {
            stopActiveExecutions("this JobManager no longer leads");
        }
        mode.shutdown();
        coordinators.closeAll();
        moveTo(JobMasterState.SUSPENDED, "this JobManager no longer leads");
        LOG.info("Job {} suspended: this JobManager no longer leads", jobId());
    }

    /** Ends the job in {@code terminal} with {@code cause} ("" when it finished); nothing once it ended. */
    void terminate(JobMasterState terminal, String cause) {
        if (state.isDeadEnd()) {
            return;
        }
        moveTo(terminal, cause.isEmpty() ? "done" : cause);
        failure = cause;
        endedAtMs = clock().getAsLong();
        stopActiveExecutions("job ended as " + terminal);
        CompletableFuture<Void> quiesced = mode.shutdown();
        taskManagers.releaseAll();
        coordinators.closeAll();
        if (terminal == JobMasterState.FAILED) {
            LOG.error("Job {} failed: {}", jobId(), cause);
        } else {
            LOG.info("Job {} {} after {} ms, {} restarts", jobId(), terminal,
                    endedAtMs - definition.submittedAtMs(), mode.restarts());
        }
        // The result is stored and the cleanup starts (which deletes what no retained checkpoint
        // uses) only once no checkpoint is being made durable any more: one finalizing now may
        // still write its metadata and become the retained checkpoint.
        quiesced.whenComplete((ignored, error) -> terminated.run());
    }
}
