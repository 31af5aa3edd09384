package io.duraflow.jobmanager.jobmaster;

import io.duraflow.jobmanager.jobmaster.execution.Execution;
import io.duraflow.jobmanager.jobmaster.execution.ExecutionGraph;
import io.duraflow.jobmanager.jobmaster.execution.ExecutionState;
import io.duraflow.jobmanager.jobmaster.execution.JobEventLog;
import io.duraflow.jobmanager.jobmaster.execution.JobSettings;
import io.duraflow.jobmanager.jobmaster.execution.StreamingPhase;

import io.duraflow.jobmanager.jobmaster.checkpointing.CheckpointRestore;
import io.duraflow.jobmanager.jobmaster.checkpointing.CheckpointTriggers;
import io.duraflow.jobmanager.jobmaster.checkpointing.JobSavepoints;
import io.duraflow.jobmanager.jobmaster.checkpointing.StreamingCheckpoints;
import io.duraflow.jobmanager.jobmaster.coordination.CoordinatorHolder;
import io.duraflow.jobmanager.jobmaster.coordination.SourceCoordinator;
import io.duraflow.jobmanager.jobmaster.failover.BatchFailoverStrategy;
import io.duraflow.jobmanager.jobmaster.failover.FailoverHandler;
import io.duraflow.jobmanager.jobmaster.failover.RestartBackoff;
import io.duraflow.jobmanager.jobmaster.failover.FailoverStrategy;
import io.duraflow.jobmanager.jobmaster.failover.RecoveryRestore;
import io.duraflow.jobmanager.jobmaster.failover.StreamingRestart;
import io.duraflow.jobmanager.jobmaster.failover.StreamingTakeover;
import io.duraflow.jobmanager.jobmaster.failover.TakeoverActions;
import io.duraflow.jobmanager.jobmaster.scheduling.BlockingAdaptiveScheduling;
import io.duraflow.jobmanager.jobmaster.scheduling.PipelinedScheduling;
import io.duraflow.jobmanager.jobmaster.scheduling.SchedulingDriver;
import io.duraflow.jobmanager.jobmaster.scheduling.SchedulingStrategy;
import io.duraflow.jobmanager.jobmaster.scheduling.TaskDeployments;
import io.duraflow.jobmanager.jobmaster.scheduling.TaskManagerActions;
import io.duraflow.jobmanager.resourcemanager.SlotPool;
import io.duraflow.jobmanager.resourcemanager.TaskManagerGateways;

import io.duraflow.checkpoint.CheckpointCoordinator;
import io.duraflow.checkpoint.CheckpointCoordinatorConfig;
import io.duraflow.checkpoint.CheckpointFailure;
import io.duraflow.checkpoint.CheckpointIdCounter;
import io.duraflow.checkpoint.CheckpointMetrics;
import io.duraflow.checkpoint.CheckpointStats;
import io.duraflow.checkpoint.CheckpointTask;
import io.duraflow.checkpoint.CompletedCheckpointStore;
import io.duraflow.checkpoint.InitialRestore;
import io.duraflow.config.RuntimeMode;
import io.duraflow.fs.FileSystem;
import io.duraflow.state.CheckpointDirectories;
import io.duraflow.state.TaskStateSnapshot;
import io.duraflow.mailbox.Mailbox;
import io.duraflow.jobmanager.recovery.RecoveryPlan;
import io.duraflow.plan.JobGraph;
import io.duraflow.rpc.Rpc;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.CollectedResult;
import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.rpc.proto.OperatorEvent;
import io.duraflow.rpc.proto.TaskStateUpdate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one job: the orchestrator of its parts. The {@link ExecutionGraph} holds the executions;
 * the {@link SchedulingStrategy} says which run when (today {@link BlockingAdaptiveScheduling}) and
 * the {@link SchedulingDriver} deploys them;
 * the {@link FailoverStrategy} says what a failure costs (today {@link BatchFailoverStrategy}) and
 * the {@link FailoverHandler} carries that out; the {@link CoordinatorHolder} runs the operator
 * coordinators; {@link RecoveryRestore} takes over what an earlier leader left. This class wires
 * those parts, owns the job's {@link JobMasterState}, talks to slots and TaskManagers through
 * {@link TaskManagerActions}, and goes on from what the parts decided; {@link TaskEvents} goes
 * on from what the tasks report.
 *
 * <p><b>Streaming jobs</b> ({@link JobGraph#mode()} STREAMING) run every task at once ({@link
 * PipelinedScheduling}) and, with checkpointing on, take checkpoints through a {@link
 * CheckpointCoordinator} ({@link StreamingCheckpoints}, {@link CheckpointTriggers}). Any task
 * failure or lost TaskManager restarts the whole job from its latest completed checkpoint
 * ({@link StreamingRestart}). Every handler respects the {@link StreamingPhase}: nothing is
 * scheduled or checkpointed while the job restarts.
 *
 * <p>Main thread only. Time comes from the injected clock and delays from the injected
 * scheduler, so tests drive it step by step.
 */
public final class JobMaster {
    private static final Logger LOG = LoggerFactory.getLogger(JobMaster.class);

    /** Told once when the job reaches FINISHED, FAILED or CANCELED. */
    public interface TerminationListener {
        void jobTerminated(JobMaster job);
    }

    private final String jobId;
    private final String jobClass;
    private final Map<String, String> params;
    private final JobGraph graph;
    private final JobSettings settings;
    private final LongSupplier clock;
    private final TerminationListener listener;
    private final ExecutionGraph executions;
    private final SchedulingDriver scheduling;
    private final FailoverHandler failover;
    private final CoordinatorHolder coordinators;
    private final TaskManagerActions taskManagers;
    private final boolean streaming;
    private final StreamingCheckpoints checkpointView;
    private final CheckpointTriggers checkpointTriggers;
    private final StreamingRestart streamingRestart;
    private final TaskEvents taskEvents;
    private final JobSavepoints savepoints;
    /** Running streaming tasks' counters from the heartbeats, for {@link #status()}. */
    private final TaskRates taskRates = new TaskRates();
    private JobMasterState state = JobMasterState.CREATED;
    private final long submittedAtMs;
    private long endedAtMs;
    private String failure = "";
    private JobEventLog eventLog = JobEventLog.NONE;
    private int adoptedTasks;
    /** Whether TaskManagers keep running tasks when the leader goes ({@code taskmanager.leader-loss.timeout} > 0). */
    private boolean keepTasksForNextLeader;
    private int restoredTasks;
    /** When this job master took the job over from an earlier leader ({@link #restore}); 0 if it did not. */
    private long takenOverAtMs;
    /** When the leader that recovers this job was elected; 0 for a job submitted to it. */
    private long leaderElectedAtMs;
    /** Tasks with earlier attempts that a batch recovery runs again (see {@link JobMetrics#tasksToRunAgain}). */
    private int rerunTasks;
    /** When the first task of this JobMaster was reported running; 0 before. */
    private long firstTaskRunningAtMs;
    /** Every state-changing entry asserts it runs here (the Dispatcher's main thread). */
    private final Mailbox mainThread;

    public JobMaster(String jobId, String jobClass, Map<String, String> params, Map<String, String> config,
            JobGraph graph, JobSettings settings, String sessionId, SlotPool slots, TaskManagerGateways gateways,
            Mailbox scheduler, LongSupplier clock, TerminationListener listener, long submittedAtMs) {
        this.jobId = jobId;
        this.mainThread = scheduler;
        this.jobClass = jobClass;
        this.params = Map.copyOf(params);
        this.graph = graph;
        this.settings = settings;
        this.clock = clock;
        this.listener = listener;
        this.submittedAtMs = submittedAtMs;
        this.streaming = graph.mode() == RuntimeMode.STREAMING;
        this.executions = new ExecutionGraph(jobId, graph);
        this.coordinators = new CoordinatorHolder(executions, () -> eventLog, gateways, scheduler,
                error -> guarded("handling a split enumerator's periodic work", () -> enumeratorFailed(error)));
        this.taskManagers = new TaskManagerActions(jobId, graph, slots, gateways,
                new TaskDeployments(sessionId, jobClass, this.params, Map.copyOf(config), settings, executions,
                        this::restoreFrom, this::runId));
        SchedulingStrategy strategy = streaming ? new PipelinedScheduling(executions)
                : new BlockingAdaptiveScheduling(executions, settings, () -> eventLog);
        this.scheduling = new SchedulingDriver(strategy, taskManagers, scheduler, clock, this::schedule,
                this::deploymentFailed, () -> eventLog);
        this.checkpointView = new StreamingCheckpoints(sessionId, executions, gateways, coordinators,
                () -> state == JobMasterState.RUNNING && phase() == StreamingPhase.NORMAL);
        this.checkpointTriggers = new CheckpointTriggers(executions, scheduler);
        this.streamingRestart = new StreamingRestart(executions, taskManagers, coordinators, scheduling,
                checkpointTriggers, clock, RestartBackoff.start(settings.restart()), new StreamingRestart.Job(
                        () -> state == JobMasterState.RUNNING, cause -> terminate(JobMasterState.FAILED, cause),
                        (what, step) -> guarded(what, step::run), this::scheduleNow));
        this.failover = new FailoverHandler(new BatchFailoverStrategy(), executions, taskManagers, coordinators,
                () -> eventLog, clock, RestartBackoff.start(settings.restart()));
        this.taskEvents = new TaskEvents(settings, streaming, executions, taskManagers, coordinators, failover,
                streamingRestart, checkpointTriggers, new TaskEvents.Job(() -> state, this::terminate,
                        this::completeCancellationIfIdle, this::scheduleNow, () -> eventLog));
        this.savepoints = new JobSavepoints(jobId, streaming, checkpointTriggers,
                () -> state == JobMasterState.RUNNING && phase() == StreamingPhase.NORMAL,
                () -> guarded("cancelling the job after its savepoint", this::cancelNow));
    }

    /** Where the job's progress is recorded for recovery; set before {@link #start}. */
    public void eventLog(JobEventLog log) {
        this.eventLog = log;
    }

    /**
     * What a streaming job's checkpoint coordinator needs besides the job master itself.
     *
     * @param io must run its tasks one at a time, in order (see {@link CheckpointCoordinator})
     */
    public record CheckpointSetup(CheckpointCoordinatorConfig config, CheckpointDirectories directories,
            FileSystem fileSystem, Executor io, CheckpointIdCounter idCounter, CompletedCheckpointStore store,
            InitialRestore initialRestore, boolean allowNonRestoredState) {
        /** A job that starts from empty state (or its own latest checkpoint). */
        public CheckpointSetup(CheckpointCoordinatorConfig config, CheckpointDirectories directories,
                FileSystem fileSystem, Executor io, CheckpointIdCounter idCounter, CompletedCheckpointStore store) {
            this(config, directories, fileSystem, io, idCounter, store, null, false);
        }
    }

    /** Streaming jobs with checkpointing on: creates the checkpoint coordinator; before {@link #start}. */
    public void enableCheckpoints(CheckpointSetup setup) {
        if (!streaming) {
            throw new IllegalStateException("job " + jobId + " is a batch job: it takes no checkpoints");
        }
        CheckpointCoordinator coordinator = new CheckpointCoordinator(jobId, setup.config(), setup.directories(),
                new CheckpointCoordinator.Services(setup.fileSystem(), mainThread, setup.io(), clock,
                        setup.idCounter(), setup.store(), checkpointView, checkpointView,
                        cause -> guarded("failing over after checkpoint failures",
                                () -> streamingRestart.restart("checkpoints failed: " + cause))));
        if (setup.initialRestore() != null) {
            coordinator.initialRestore(setup.initialRestore());
        }
        streamingRestart.restoreRules(setup.config().maxParallelism(), setup.allowNonRestoredState());
        checkpointTriggers.coordinator(coordinator);
    }

    /**
     * Takes a savepoint into a new directory under {@code targetDirectory}, then cancels the job if
     * {@code cancelJob} (see {@link JobSavepoints}).
     *
     * @return completes on the main thread with the savepoint, or fails with a {@link
     *     SavepointRefusedException} (the job cannot take one now) or the coordinator's
     *     {@link io.duraflow.checkpoint.CheckpointException}
     */
    public CompletableFuture<io.duraflow.checkpoint.CompletedCheckpoint> triggerSavepoint(
            io.duraflow.fs.FsPath targetDirectory, boolean cancelJob) {
        mainThread.assertRunningInMailbox();
        return savepoints.trigger(targetDirectory, cancelJob);
    }

    /** The job's checkpoint coordinator, or null (batch, or checkpointing off). */
    public CheckpointCoordinator checkpointCoordinator() {
        return checkpointTriggers.coordinator();
    }

    /** The job's recent checkpoints, oldest first; empty without checkpointing. */
    public List<CheckpointStats> checkpointHistory() {
        return checkpointTriggers.history();
    }

    /** Records that the job starts over from the beginning, before {@link #start}. */
    public void logRunStarted(String reason) {
        eventLog.runStarted(reason);
    }

    /**
     * Checks the graph, then starts the coordinators (a source's enumerator lists its input, so
     * a missing input file fails the submission before anything is stored or scheduled) on {@code
     * executor}, at most {@code timeout}, without blocking the main thread; completes (also when
     * it fails) on {@code mainThread}. Until it completes, nothing but {@link #suspend} or {@link
     * #failBeforeStart} may be called; the coordinators are closed once their start returns even
     * if it took too long.
     *
     * @return completes when the job may {@link #start} or {@link #restore}; fails (with a
     *         {@link java.util.concurrent.CompletionException} around it) with the one-line cause,
     *         e.g. an IllegalArgumentException for a graph that cannot run, the enumerator's
     *         exception for a missing input, or a TimeoutException
     */
    public CompletableFuture<Void> prepareAsync(Executor executor, Executor mainThread, Duration timeout) {
        try {
            graph.checkKeyGroups(settings.keyGroups());
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(e);
        }
        return coordinators.startAsync(executor, mainThread, timeout);
    }

    /**
     * Batch job recovery: takes over what survived an earlier leader (see {@link RecoveryRestore}).
     *
     * @return how many executions were restored
     */
    public int restore(RecoveryPlan plan) throws Exception {
        mainThread.assertRunningInMailbox();
        restoredTasks = RecoveryRestore.apply(plan, executions, coordinators, eventLog);
        takenOverAtMs = clock.getAsLong();
        rerunTasks = plan.nextAttempts().size();
        return restoredTasks;
    }

    /**
     * A leader change that costs no running work (issue 14): after {@link #restore} with the
     * adoption plan's recovery plan, the adopted subtasks are RUNNING where they kept running,
     * and the splits their readers hold count as theirs.
     *
     * @param tmAddress host:port of a registered TaskManager
     * @return the adopted executions
     */
    public List<Execution> adopt(io.duraflow.jobmanager.recovery.AdoptionPlan plan,
            java.util.function.Function<String, String> tmAddress) {
        mainThread.assertRunningInMailbox();
        List<Execution> adopted = new ArrayList<>();
        for (var decision : plan.adopted()) {
            Execution execution = executions.executions(decision.key().vertex())[decision.key().subtask()];
            execution.adoptRunning(decision.attempt(), decision.tmId(), tmAddress.apply(decision.tmId()));
            adopted.add(execution);
        }
        plan.adoptedSplits().forEach((node, perSubtask) -> {
            SourceCoordinator source = coordinators.source(node);
            if (source != null) {
                perSubtask.forEach(source::markAssigned);
            }
        });
        Map<String, List<Execution>> byTaskManager = new java.util.LinkedHashMap<>();
        adopted.forEach(e -> byTaskManager.computeIfAbsent(e.tmId(), tm -> new ArrayList<>()).add(e));
        byTaskManager.forEach(eventLog::executionsDeployed);
        adoptedTasks = adopted.size();
        return adopted;
    }

    /**
     * The TaskManager of adopted attempts could not be told: they fail here (and run again as
     * failures do); the TaskManager cancels them when its leader-loss timeout passes.
     */
    public void adoptionFailed(List<AttemptId> attempts, String reason) {
        mainThread.assertRunningInMailbox();
        for (AttemptId attempt : attempts) {
            Execution[] subtasks = executions.executions(attempt.getVertex());
            Execution execution = subtasks == null ? null : subtasks[attempt.getSubtask()];
            if (execution != null && execution.attempt() == attempt.getAttempt()
                    && execution.state() == ExecutionState.RUNNING) {
                onTaskStateUpdate(TaskStateUpdate.newBuilder().setTmId(execution.tmId())
                        .setAttempt(attempt).setState(io.duraflow.rpc.proto.TaskState.FAILED).setFailure(reason)
                        .build());
            }
        }
    }

    /**
     * Whether a suspension leaves the running tasks to the TaskManagers (which keep them for
     * the next leader) instead of cancelling them.
     */
    public void keepTasksForNextLeader(boolean keep) {
        this.keepTasksForNextLeader = keep;
    }

    /** Executions adopted running from an earlier leader. */
    public int adoptedTasks() {
        return adoptedTasks;
    }

    long takenOverAtMs() {
        return takenOverAtMs;
    }

    /** A job this leader recovers: when it was elected (the status shows how long the take-over took). */
    public void recoveredByLeaderElectedAt(long electedAtMs) {
        this.leaderElectedAtMs = electedAtMs;
    }

    long leaderElectedAtMs() {
        return leaderElectedAtMs;
    }

    /** Executions taken over from an earlier leader without running again. */
    public int restoredTasks() {
        return restoredTasks;
    }

    /** Starts scheduling; {@link #prepareAsync} must have succeeded. */
    public void start() {
        mainThread.assertRunningInMailbox();
        if (state != JobMasterState.CREATED) {
            throw new IllegalStateException("job " + jobId + " cannot start: it is " + state);
        }
        guarded("starting the job", () -> startNow());
    }

    private void startNow() throws Exception {
        moveTo(JobMasterState.RUNNING, "started");
        // Splits the enumerators handed out before the start, recorded after any RunStarted or recovery.
        coordinators.reportAssignments();
        LOG.info("Job {} ({}) running: {} vertices, fingerprint {}", jobId, graph.jobName(), graph.vertices().size(),
                graph.fingerprint());
        if (streaming) {
            // A new job finds no checkpoint; a job a new leader recovers finds the latest one.
            streamingRestart.restoreAndSchedule(false);
            return;
        }
        if (executions.allFinished()) {
            // Recovery restored every task: the job had finished, only its result was not stored.
            terminate(JobMasterState.FINISHED, "");
            return;
        }
        scheduleNow();
    }

    /**
     * Starts a recovered streaming job whose TaskManagers kept its tasks running (issue 14): it
     * adopts them where {@link io.duraflow.jobmanager.recovery.AdoptionPlanner} proves it correct,
     * else cancels them and restores its latest checkpoint (see {@link StreamingTakeover}).
     *
     * @param reports   every kept task registered TaskManagers reported for this job
     * @param tmAddress host:port of a registered TaskManager
     */
    public void startTakingOver(List<io.duraflow.jobmanager.recovery.ReportedTask> reports,
            TakeoverActions actions, java.util.function.Function<String, String> tmAddress) {
        mainThread.assertRunningInMailbox();
        if (state != JobMasterState.CREATED) {
            throw new IllegalStateException("job " + jobId + " cannot start: it is " + state);
        }
        if (!streaming) {
            throw new IllegalStateException("job " + jobId + " is a batch job; its kept tasks are adopted by #adopt");
        }
        guarded("starting the job", () -> {
            moveTo(JobMasterState.RUNNING, "started");
            takenOverAtMs = clock.getAsLong();
            LOG.info("Job {} ({}) running: {} vertices, fingerprint {}; deciding on {} kept tasks", jobId,
                    graph.jobName(), graph.vertices().size(), graph.fingerprint(), reports.size());
            streamingRestart.takeOver(new StreamingTakeover(jobId, graph, executions, checkpointView,
                    checkpointTriggers, reports, actions,
                    step -> () -> guarded("going on with the adopted tasks", step::run),
                    count -> adoptedTasks = count, tmAddress));
        });
    }

    /** The job cannot even start (e.g. its input vanished before a recovery): it fails. */
    public void failBeforeStart(String cause) {
        mainThread.assertRunningInMailbox();
        terminate(JobMasterState.FAILED, cause);
    }

    /**
     * This JobManager lost its leadership: stop the tasks and coordinators without a result,
     * the next leader recovers the job.
     */
    public void suspend() {
        mainThread.assertRunningInMailbox();
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
        checkpointTriggers.shutdown();
        coordinators.closeAll();
        moveTo(JobMasterState.SUSPENDED, "this JobManager no longer leads");
        LOG.info("Job {} suspended: this JobManager no longer leads", jobId);
    }

    /** Streaming: where the job is in a restart (NORMAL for batch jobs). */
    private StreamingPhase phase() {
        return streamingRestart.phase();
    }

    /** What the next deployments restore; null: empty state. */
    private CheckpointRestore restoreFrom() {
        return streamingRestart.restoreFrom();
    }

    /** The run of the streaming job the next deployments belong to. */
    private String runId() {
        return streamingRestart.runId();
    }

    private void moveTo(JobMasterState target, String reason) {
        state = state.transitionTo(target, jobId, reason);
        executions.changed();
    }

    /**
     * Counts the changes of what {@link #status()} shows besides rates and counters; any thread
     * may read it (see {@code PublishedStatuses}).
     */
    public LongSupplier statusChangeCounter() {
        return executions.changeCount();
    }

    /**
     * Runs a handler; whatever it throws fails the job with that cause, so that a fault never
     * leaves the job running with nobody driving it. A job that already ended (or left this
     * leader) cannot fail again: then the exception goes on to the caller.
     */
    private void guarded(String what, Handler handler) {
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
                throw new IllegalStateException("job " + jobId + " had ended when " + what + " failed", e);
            }
            LOG.error("Job {}: failed while {}", jobId, what, e);
            terminate(JobMasterState.FAILED, "JobManager failed while " + what + ": " + Rpc.describe(e));
        }
    }

    private interface Handler {
        void run() throws Exception;
    }

    /** Cancels every deploying or running task and frees its slot; no restart is pending after. */
    private void stopActiveExecutions(String reason) {
        scheduling.cancelWakeUp();
        taskManagers.stopAll(executions.active(), reason);
    }

    // ------------------------------------------------------------------ scheduling

    /** Deploys every task the scheduling strategy says may run, as long as there are free slots. */
    public void schedule() {
        mainThread.assertRunningInMailbox();
        guarded("scheduling", this::scheduleNow);
    }

    private void scheduleNow() {
        if (state != JobMasterState.RUNNING || phase() != StreamingPhase.NORMAL) {
            return;
        }
        scheduling.schedule();
    }

    private void deploymentFailed(Execution execution, AttemptId attempt, String tmId, Throwable error) {
        guarded("handling a failed deployment", () -> taskEvents.deploymentFailed(execution, attempt, tmId, error));
    }

    // ------------------------------------------------------------------ events from TaskManagers

    public void onTaskStateUpdate(TaskStateUpdate update) {
        mainThread.assertRunningInMailbox();
        if (firstTaskRunningAtMs == 0 && update.getState() == io.duraflow.rpc.proto.TaskState.RUNNING) {
            firstTaskRunningAtMs = clock.getAsLong();
        }
        guarded("handling a task state update", () -> taskEvents.onTaskStateUpdate(update));
    }

    /** A heartbeat's sample of a running streaming task's counters; one of an attempt no longer current is ignored. */
    public void onTaskMetrics(AttemptId attempt, io.duraflow.rpc.proto.TaskMetricsSample sample) {
        mainThread.assertRunningInMailbox();
        Execution[] subtasks = executions.executions(attempt.getVertex());
        if (subtasks != null && attempt.getSubtask() < subtasks.length
                && subtasks[attempt.getSubtask()].attempt() == attempt.getAttempt()) {
            taskRates.record(attempt.getVertex(), attempt.getSubtask(), attempt.getAttempt(), sample);
        }
    }

    TaskRates taskRates() {
        return taskRates;
    }

    /**
     * Whether {@code attempt} is its subtask's current attempt on {@code tmId}, deployed and not
     * asked to stop (DEPLOYING or RUNNING there), or FINISHED there: the TaskManager frees the
     * slot before it reports the finish, yet a heartbeat it built before may arrive after the
     * report. Any other attempt of this job that a TaskManager runs, it runs unknown to this job
     * master (see {@code Dispatcher#onTasksRunning}).
     */
    public boolean runsOn(AttemptId attempt, String tmId) {
        mainThread.assertRunningInMailbox();
        Execution[] subtasks = executions.executions(attempt.getVertex());
        if (subtasks == null || attempt.getSubtask() < 0 || attempt.getSubtask() >= subtasks.length) {
            return false;
        }
        Execution execution = subtasks[attempt.getSubtask()];
        return execution.attempt() == attempt.getAttempt() && tmId.equals(execution.tmId())
                && (execution.state() == ExecutionState.DEPLOYING || execution.state() == ExecutionState.RUNNING
                        || execution.state() == ExecutionState.FINISHED);
    }

    /** A TaskManager is gone: its running tasks failed, and its finished output is lost. */
    public void onTaskManagerLost(String tmId) {
        mainThread.assertRunningInMailbox();
        guarded("handling the loss of a TaskManager", () -> taskEvents.onTaskManagerLost(tmId));
    }

    public void onOperatorEvent(AttemptId attempt, int nodeId, OperatorEvent event) {
        mainThread.assertRunningInMailbox();
        guarded("handling an operator event", () -> taskEvents.onOperatorEvent(attempt, nodeId, event));
    }

    private void enumeratorFailed(Throwable error) {
        taskEvents.enumeratorFailed(error);
    }

    // ------------------------------------------------------------------ streaming: checkpoints and restarts

    /** A task's part of a checkpoint is durable (decoded by the caller). */
    public void acknowledgeCheckpoint(CheckpointTask task, long checkpointId, TaskStateSnapshot state,
            CheckpointMetrics metrics) {
        mainThread.assertRunningInMailbox();
        // Also after the job ended: the coordinator then deletes the files the task wrote.
        guarded("handling a checkpoint acknowledgement", () -> checkpointTriggers.acknowledge(task, checkpointId,
                state, metrics));
    }

    /** A task will not take its part of a checkpoint: the checkpoint is aborted. */
    public void declineCheckpoint(CheckpointTask task, long checkpointId, CheckpointFailure failure) {
        mainThread.assertRunningInMailbox();
        guarded("handling a checkpoint decline", () -> checkpointTriggers.decline(task, checkpointId, failure));
    }

    /**
     * A streaming task processed all its input and waits for a checkpoint taken after that (its
     * sinks commit in it) before it finishes. Once every source task did, the final checkpoint is
     * triggered at once: its barriers follow the sources' last records, so it covers everything
     * downstream too. Once every task did, another is triggered, for tasks that wait for one
     * taken after their own end.
     */
    public void onInputEnded(AttemptId attempt) {
        mainThread.assertRunningInMailbox();
        guarded("handling the end of a task's input", () -> taskEvents.onInputEnded(attempt));
    }

    // ------------------------------------------------------------------ cancellation and the end

    public void cancel() {
        mainThread.assertRunningInMailbox();
        guarded("cancelling the job", () -> cancelNow());
    }

    private void cancelNow() {
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

    /** Forces cancellation to end even if a TaskManager never confirms. */
    public void forceCancelled() {
        mainThread.assertRunningInMailbox();
        if (state == JobMasterState.CANCELLING) {
            terminate(JobMasterState.CANCELED, "cancelled by the user");
        }
    }

    private void completeCancellationIfIdle() {
        if (executions.active().isEmpty()) {
            terminate(JobMasterState.CANCELED, "cancelled by the user");
        }
    }

    private void terminate(JobMasterState terminal, String cause) {
        if (state.isDeadEnd()) {
            return;
        }
        moveTo(terminal, cause.isEmpty() ? "done" : cause);
        failure = cause;
        endedAtMs = clock.getAsLong();
        stopActiveExecutions("job ended as " + terminal);
        checkpointTriggers.shutdown();
        taskManagers.releaseAll();
        coordinators.closeAll();
        if (terminal == JobMasterState.FAILED) {
            LOG.error("Job {} failed: {}", jobId, cause);
        } else {
            LOG.info("Job {} {} after {} ms, {} restarts", jobId, terminal, endedAtMs - submittedAtMs, restarts());
        }
        listener.jobTerminated(this);
    }

    // ------------------------------------------------------------------ views

    public boolean isTerminal() {
        return state.isTerminal();
    }

    public String jobId() {
        return jobId;
    }

    public JobMasterState state() {
        return state;
    }

    public JobGraph graph() {
        return graph;
    }

    public Map<String, String> params() {
        return params;
    }

    public String jobClass() {
        return jobClass;
    }

    /** The subtasks of a vertex, or null while its parallelism is not decided. */
    public Execution[] executions(int vertexId) {
        return executions.executions(vertexId);
    }

    public int restarts() {
        return streaming ? streamingRestart.restarts() : failover.restarts();
    }

    long submittedAtMs() {
        return submittedAtMs;
    }

    long endedAtMs() {
        return endedAtMs;
    }

    /** The cause of a FAILED job, or "". */
    String failure() {
        return failure;
    }

    public JobStatus status() {
        return JobStatusView.of(this, executions);
    }

    /**
     * What the metrics endpoint reads of this job. {@code recovered}: a leader took the job over
     * from an earlier one, so its tasks to run again count.
     */
    public JobMetrics metrics(boolean recovered) {
        mainThread.assertRunningInMailbox();
        JobStatus status = status();
        int runAgain = 0;
        if (recovered) {
            runAgain = streaming ? status.getVerticesList().stream().mapToInt(v -> v.getParallelism()).sum()
                    : rerunTasks;
        }
        CheckpointCoordinator coordinator = checkpointTriggers.coordinator();
        return new JobMetrics(status, streaming, runAgain, firstTaskRunningAtMs,
                coordinator == null ? null : coordinator.totals());
    }

    /** Collected results of finished sinks, by subtask order. */
    public List<CollectedResult> collected() {
        return executions.collected();
    }
}
