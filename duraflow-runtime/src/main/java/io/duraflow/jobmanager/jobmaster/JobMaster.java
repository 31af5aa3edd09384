package io.duraflow.jobmanager.jobmaster;

import io.duraflow.jobmanager.jobmaster.execution.Execution;
import io.duraflow.jobmanager.jobmaster.execution.ExecutionGraph;
import io.duraflow.jobmanager.jobmaster.execution.ExecutionState;
import io.duraflow.jobmanager.jobmaster.execution.JobEventLog;
import io.duraflow.jobmanager.jobmaster.execution.JobSettings;

import io.duraflow.jobmanager.jobmaster.checkpointing.SavepointRefusedException;
import io.duraflow.jobmanager.jobmaster.failover.TakeoverActions;
import io.duraflow.jobmanager.resourcemanager.SlotPool;
import io.duraflow.jobmanager.resourcemanager.TaskManagerGateways;

import io.duraflow.checkpoint.CheckpointCoordinator;
import io.duraflow.checkpoint.CheckpointCoordinatorConfig;
import io.duraflow.checkpoint.CheckpointFailure;
import io.duraflow.checkpoint.CheckpointIdCounter;
import io.duraflow.checkpoint.CheckpointMetrics;
import io.duraflow.checkpoint.CheckpointStats;
import io.duraflow.checkpoint.CheckpointTask;
import io.duraflow.checkpoint.CompletedCheckpoint;
import io.duraflow.checkpoint.CompletedCheckpointStore;
import io.duraflow.checkpoint.InitialRestore;
import io.duraflow.config.RuntimeMode;
import io.duraflow.fs.FileSystem;
import io.duraflow.fs.FsPath;
import io.duraflow.jobmanager.recovery.AdoptionPlan;
import io.duraflow.jobmanager.recovery.RecoveryPlan;
import io.duraflow.jobmanager.recovery.ReportedTask;
import io.duraflow.mailbox.Mailbox;
import io.duraflow.plan.JobGraph;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.CollectedResult;
import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.rpc.proto.OperatorEvent;
import io.duraflow.rpc.proto.TaskMetricsSample;
import io.duraflow.rpc.proto.TaskState;
import io.duraflow.rpc.proto.TaskStateUpdate;
import io.duraflow.state.CheckpointDirectories;
import io.duraflow.state.TaskStateSnapshot;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * Runs one job: the face the dispatcher and the tests see. Each entry asserts it runs on the main
 * thread and runs its handler guarded (whatever it throws fails the job); what it does is done by
 * three parts behind it:
 * <ul>
 *   <li>the {@link JobContext}: what every job has and does the same way (its {@link
 *       ExecutionGraph}, coordinators, slots and TaskManagers, scheduling driver, event log and
 *       {@link JobMasterState}; start, schedule, cancel, suspend, end);</li>
 *   <li>its {@link JobMode}, chosen once from {@link JobGraph#mode()}: a {@link BatchMode} (blocking
 *       adaptive scheduling, failover of what a failure costs, recovery of what an earlier leader
 *       left) or a {@link StreamingMode} (every task at once, checkpoints and savepoints, a global
 *       restart from the latest checkpoint, take-over of kept tasks);</li>
 *   <li>{@link TaskEvents}: how the job goes on from what its tasks report.</li>
 * </ul>
 *
 * <p>Main thread only. Time comes from the injected clock and delays from the injected
 * scheduler, so tests drive it step by step.
 */
public final class JobMaster {
    /** Told once when the job reaches FINISHED, FAILED or CANCELED. */
    public interface TerminationListener {
        void jobTerminated(JobMaster job);
    }

    private final JobContext job;
    private final JobMode mode;
    private final TaskEvents taskEvents;
    /** Every entry asserts it runs here (the Dispatcher's main thread). */
    private final Mailbox mainThread;

    public JobMaster(String jobId, String jobClass, Map<String, String> params, Map<String, String> config,
            JobGraph graph, JobSettings settings, String sessionId, SlotPool slots, TaskManagerGateways gateways,
            Mailbox scheduler, LongSupplier clock, TerminationListener listener, long submittedAtMs) {
        this(jobId, jobClass, null, params, config, graph, settings, sessionId, slots, gateways, scheduler, clock,
                listener, submittedAtMs);
    }

    /** A job whose class is in {@code jar} (null: on the class path), which its tasks fetch and load it from. */
    public JobMaster(String jobId, String jobClass, io.duraflow.rpc.proto.JobArtifact jar, Map<String, String> params,
            Map<String, String> config, JobGraph graph, JobSettings settings, String sessionId, SlotPool slots,
            TaskManagerGateways gateways, Mailbox scheduler, LongSupplier clock, TerminationListener listener,
            long submittedAtMs) {
        this.mainThread = scheduler;
        this.job = new JobContext(
                new JobContext.Definition(jobId, jobClass, jar, Map.copyOf(params), Map.copyOf(config), graph,
                        settings, submittedAtMs),
                new JobContext.Services(sessionId, slots, gateways, scheduler, clock),
                () -> listener.jobTerminated(this), JobMode.of(graph.mode()));
        this.mode = job.mode();
        this.taskEvents = new TaskEvents(job);
    }

    /** Where the job's progress is recorded for recovery; set before {@link #start}. */
    public void eventLog(JobEventLog log) {
        job.eventLog(log);
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
        mode.enableCheckpoints(setup);
    }

    /**
     * Takes a savepoint into a new directory under {@code targetDirectory}, then cancels the job if
     * {@code cancelJob} (see {@link io.duraflow.jobmanager.jobmaster.checkpointing.JobSavepoints}).
     *
     * @return completes on the main thread with the savepoint, or fails with a {@link
     *     SavepointRefusedException} (the job cannot take one now) or the coordinator's
     *     {@link io.duraflow.checkpoint.CheckpointException}
     */
    public CompletableFuture<CompletedCheckpoint> triggerSavepoint(FsPath targetDirectory, boolean cancelJob) {
        mainThread.assertRunningInMailbox();
        return mode.triggerSavepoint(targetDirectory, cancelJob);
    }

    /** The job's checkpoint coordinator, or null (batch, or checkpointing off). */
    public CheckpointCoordinator checkpointCoordinator() {
        return mode.checkpointCoordinator();
    }

    /** The job's recent checkpoints, oldest first; empty without checkpointing. */
    public List<CheckpointStats> checkpointHistory() {
        return mode.checkpointHistory();
    }

    /** Records that the job starts over from the beginning, before {@link #start}. */
    public void logRunStarted(String reason) {
        job.eventLog().runStarted(reason);
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
            graph().checkKeyGroups(job.settings().keyGroups());
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(e);
        }
        return job.coordinators().startAsync(executor, mainThread, timeout);
    }

    // ------------------------------------------------------------------ taking the job over from an earlier leader

    /**
     * Batch job recovery: takes over what survived an earlier leader (see {@link
     * io.duraflow.jobmanager.jobmaster.failover.RecoveryRestore}); a streaming job refuses.
     *
     * @return how many executions were restored
     */
    public int restore(RecoveryPlan plan) throws Exception {
        mainThread.assertRunningInMailbox();
        return mode.restore(plan);
    }

    /**
     * A batch job's leader change that costs no running work: after {@link #restore} with the
     * adoption plan's recovery plan, the adopted subtasks are RUNNING where they kept running,
     * and the splits their readers hold count as theirs. A streaming job refuses: it takes its
     * kept tasks over by {@link #startTakingOver}.
     *
     * @param tmAddress host:port of a registered TaskManager
     * @return the adopted executions
     */
    public List<Execution> adopt(AdoptionPlan plan, Function<String, String> tmAddress) {
        mainThread.assertRunningInMailbox();
        return mode.adopt(plan, tmAddress);
    }

    /**
     * The TaskManager of adopted attempts could not be told: they fail here (and run again as
     * failures do); the TaskManager cancels them when its leader-loss timeout passes.
     */
    public void adoptionFailed(List<AttemptId> attempts, String reason) {
        mainThread.assertRunningInMailbox();
        for (AttemptId attempt : attempts) {
            Execution[] subtasks = executions(attempt.getVertex());
            Execution execution = subtasks == null ? null : subtasks[attempt.getSubtask()];
            if (execution != null && execution.attempt() == attempt.getAttempt()
                    && execution.state() == ExecutionState.RUNNING) {
                onTaskStateUpdate(TaskStateUpdate.newBuilder().setTmId(execution.tmId())
                        .setAttempt(attempt).setState(TaskState.FAILED).setFailure(reason).build());
            }
        }
    }

    /**
     * Whether a suspension leaves the running tasks to the TaskManagers (which keep them for
     * the next leader) instead of cancelling them.
     */
    public void keepTasksForNextLeader(boolean keep) {
        job.keepTasksForNextLeader(keep);
    }

    /** Executions adopted running from an earlier leader. */
    public int adoptedTasks() {
        return job.takeover().adoptedTasks();
    }

    /** A job this leader recovers: when it was elected (the status shows how long the take-over took). */
    public void recoveredByLeaderElectedAt(long electedAtMs) {
        job.takeover().leaderElectedAt(electedAtMs);
    }

    /** Executions taken over from an earlier leader without running again. */
    public int restoredTasks() {
        return job.takeover().restoredTasks();
    }

    // ------------------------------------------------------------------ the life of the job

    /** Starts scheduling; {@link #prepareAsync} must have succeeded. */
    public void start() {
        mainThread.assertRunningInMailbox();
        if (job.state() != JobMasterState.CREATED) {
            throw new IllegalStateException("job " + jobId() + " cannot start: it is " + job.state());
        }
        job.guarded("starting the job", job::start);
    }

    /**
     * Starts a recovered streaming job whose TaskManagers kept its tasks running: it adopts them
     * where {@link io.duraflow.jobmanager.recovery.AdoptionPlanner} proves it correct, else cancels
     * them and restores its latest checkpoint (see {@link
     * io.duraflow.jobmanager.jobmaster.failover.StreamingTakeover}). A batch job refuses: it adopts
     * its kept tasks by {@link #adopt}.
     *
     * @param reports   every kept task registered TaskManagers reported for this job
     * @param tmAddress host:port of a registered TaskManager
     */
    public void startTakingOver(List<ReportedTask> reports, TakeoverActions actions,
            Function<String, String> tmAddress) {
        mainThread.assertRunningInMailbox();
        if (job.state() != JobMasterState.CREATED) {
            throw new IllegalStateException("job " + jobId() + " cannot start: it is " + job.state());
        }
        mode.startTakingOver(reports, actions, tmAddress);
    }

    /** The job cannot even start (e.g. its input vanished before a recovery): it fails. */
    public void failBeforeStart(String cause) {
        mainThread.assertRunningInMailbox();
        job.terminate(JobMasterState.FAILED, cause);
    }

    /**
     * This JobManager lost its leadership: stop the tasks and coordinators without a result,
     * the next leader recovers the job.
     */
    public void suspend() {
        mainThread.assertRunningInMailbox();
        job.suspend();
    }

    /** Deploys every task the scheduling strategy says may run, as long as there are free slots. */
    public void schedule() {
        job.schedule();
    }

    public void cancel() {
        mainThread.assertRunningInMailbox();
        job.guarded("cancelling the job", job::cancelNow);
    }

    /** Forces cancellation to end even if a TaskManager never confirms. */
    public void forceCancelled() {
        mainThread.assertRunningInMailbox();
        if (job.state() == JobMasterState.CANCELLING) {
            job.terminate(JobMasterState.CANCELED, "cancelled by the user");
        }
    }

    // ------------------------------------------------------------------ events from TaskManagers

    public void onTaskStateUpdate(TaskStateUpdate update) {
        mainThread.assertRunningInMailbox();
        taskEvents.recordFirstRunning(update);
        job.guarded("handling a task state update", () -> taskEvents.onTaskStateUpdate(update));
    }

    /** A heartbeat's sample of a running streaming task's counters; one of an attempt no longer current is ignored. */
    public void onTaskMetrics(AttemptId attempt, TaskMetricsSample sample) {
        mainThread.assertRunningInMailbox();
        taskEvents.onTaskMetrics(attempt, sample);
    }

    /** Whether {@code attempt} is its subtask's current attempt on {@code tmId} (see {@link TaskEvents#runsOn}). */
    public boolean runsOn(AttemptId attempt, String tmId) {
        mainThread.assertRunningInMailbox();
        return taskEvents.runsOn(attempt, tmId);
    }

    /** A TaskManager is gone: its running tasks failed, and its finished output is lost. */
    public void onTaskManagerLost(String tmId) {
        mainThread.assertRunningInMailbox();
        job.guarded("handling the loss of a TaskManager", () -> taskEvents.onTaskManagerLost(tmId));
    }

    public void onOperatorEvent(AttemptId attempt, int nodeId, OperatorEvent event) {
        mainThread.assertRunningInMailbox();
        job.guarded("handling an operator event", () -> taskEvents.onOperatorEvent(attempt, nodeId, event));
    }

    /** A task's part of a checkpoint is durable (decoded by the caller). */
    public void acknowledgeCheckpoint(CheckpointTask task, long checkpointId, TaskStateSnapshot state,
            CheckpointMetrics metrics) {
        mainThread.assertRunningInMailbox();
        // Also after the job ended: the coordinator then deletes the files the task wrote.
        job.guarded("handling a checkpoint acknowledgement",
                () -> mode.acknowledgeCheckpoint(task, checkpointId, state, metrics));
    }

    /** A task will not take its part of a checkpoint: the checkpoint is aborted. */
    public void declineCheckpoint(CheckpointTask task, long checkpointId, CheckpointFailure failure) {
        mainThread.assertRunningInMailbox();
        job.guarded("handling a checkpoint decline", () -> mode.declineCheckpoint(task, checkpointId, failure));
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
        job.guarded("handling the end of a task's input", () -> mode.inputEnded(attempt));
    }

    // ------------------------------------------------------------------ views

    public boolean isTerminal() {
        return job.state().isTerminal();
    }

    public String jobId() {
        return job.jobId();
    }

    public JobMasterState state() {
        return job.state();
    }

    public JobGraph graph() {
        return job.graph();
    }

    public Map<String, String> params() {
        return job.definition().params();
    }

    public String jobClass() {
        return job.definition().jobClass();
    }

    /** The subtasks of a vertex, or null while its parallelism is not decided. */
    public Execution[] executions(int vertexId) {
        return job.executions().executions(vertexId);
    }

    public int restarts() {
        return mode.restarts();
    }

    /**
     * Counts the changes of what {@link #status()} shows besides rates and counters; any thread
     * may read it (see {@code PublishedStatuses}).
     */
    public LongSupplier statusChangeCounter() {
        return job.executions().changeCount();
    }

    public JobStatus status() {
        return JobStatusView.of(job, mode.restarts(), taskEvents.rates());
    }

    /**
     * What the metrics endpoint reads of this job. {@code recovered}: a leader took the job over
     * from an earlier one, so its tasks to run again count.
     */
    public JobMetrics metrics(boolean recovered) {
        mainThread.assertRunningInMailbox();
        JobStatus status = status();
        int runAgain = recovered ? mode.tasksToRunAgain(status) : 0;
        CheckpointCoordinator coordinator = mode.checkpointCoordinator();
        return new JobMetrics(status, graph().mode() == RuntimeMode.STREAMING, runAgain, taskEvents.firstTaskRunningAtMs(),
                coordinator == null ? null : coordinator.totals());
    }

    /** Collected results of finished sinks, by subtask order. */
    public List<CollectedResult> collected() {
        return job.executions().collected();
    }
}
