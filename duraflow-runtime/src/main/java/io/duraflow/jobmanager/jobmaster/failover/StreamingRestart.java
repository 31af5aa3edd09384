package io.duraflow.jobmanager.jobmaster.failover;

import io.duraflow.jobmanager.jobmaster.execution.Execution;
import io.duraflow.jobmanager.jobmaster.execution.ExecutionGraph;
import io.duraflow.jobmanager.jobmaster.execution.ExecutionState;
import io.duraflow.jobmanager.jobmaster.JobMaster;
import io.duraflow.jobmanager.jobmaster.execution.StreamingPhase;
import io.duraflow.jobmanager.jobmaster.checkpointing.CheckpointRestore;
import io.duraflow.jobmanager.jobmaster.checkpointing.CheckpointTriggers;
import io.duraflow.jobmanager.jobmaster.coordination.CoordinatorHolder;
import io.duraflow.jobmanager.jobmaster.scheduling.SchedulingDriver;
import io.duraflow.jobmanager.jobmaster.scheduling.TaskManagerActions;

import io.duraflow.checkpoint.CheckpointCoordinator;
import io.duraflow.checkpoint.CompletedCheckpoint;
import io.duraflow.checkpoint.OperatorCheckpointState;
import io.duraflow.plan.JobGraph;
import io.duraflow.rpc.Rpc;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A streaming job's global restart from its latest completed checkpoint, in the phases of
 * {@link StreamingPhase}: every active task is cancelled, and only when none is active any more are
 * the executions reset and, after the restart delay, the latest checkpoint read and assigned
 * ({@link CheckpointRestore}), the source coordinators reset, and everything deployed again. Also
 * the first start of a streaming job, which restores the latest checkpoint a new leader finds.
 * The {@link JobMaster} says when, and goes on through {@link Job} (schedules, or fails the job).
 *
 * <p>Main thread only, like the JobMaster. A failure reported while the job is not RUNNING
 * (being cancelled, or ended) restarts nothing and is logged.
 */
public final class StreamingRestart {
    private static final Logger LOG = LoggerFactory.getLogger(StreamingRestart.class);

    /** What the restart needs of the job master. */
    public interface Job {
        /** Whether the job is RUNNING (it may have ended while the checkpoint was read). */
        boolean running();

        /** The job's state as the log names it (CANCELLING, FAILED, ...), for a failure that restarts nothing. */
        String state();

        /** Fails the job with this cause. */
        void fail(String cause);

        /** Runs a step; whatever it throws fails the job (see the JobMaster's guarded handlers). */
        void guarded(String what, Step step);

        /** Runs a step guarded, on the main thread, {@code delayMs} from now. */
        void guardedAfter(long delayMs, String what, Step step);

        /** Deploys what may run now: the restart is over. */
        void schedule();
    }

    public interface Step {
        void run() throws Exception;
    }

    private final String jobId;
    private final JobGraph graph;
    private final ExecutionGraph executions;
    private final TaskManagerActions taskManagers;
    private final CoordinatorHolder coordinators;
    private final SchedulingDriver scheduling;
    private final CheckpointTriggers triggers;
    private final LongSupplier clock;
    /** Whether another global restart is allowed, and after which delay. */
    private final RestartBackoff backoff;
    private final Job job;
    private int restarts;
    private StreamingPhase phase = StreamingPhase.NORMAL;
    private long restartDelayMs;
    private String restartCause = "";
    /** What the next deployments restore; null: empty state. */
    private CheckpointRestore restoreFrom;
    /**
     * The run the next deployments belong to: new at every restore, so a TaskManager's checkpoint
     * file merging starts new files (and a new private directory) instead of appending to files the
     * JobManager adopted at the restore.
     */
    private String runId = newRunId();
    /** The job's max parallelism, which a restored checkpoint must have; 0: not checked (no initial restore). */
    private int jobMaxParallelism;
    /** Whether state of operators the job no longer has is dropped ({@code --allow-non-restored-state}). */
    private boolean allowNonRestoredState;
    /**
     * The cause of a split enumerator failure that came before the restore under way reset the
     * enumerators, or null. A restore that resets them replaces the failed one, so the failure is
     * then part of it; one that keeps them (a first start or a take-over without a checkpoint)
     * would go on with the failed enumerator, so the job fails over from it as the restore ends.
     */
    private String enumeratorFailure;

    public StreamingRestart(ExecutionGraph executions, TaskManagerActions taskManagers, CoordinatorHolder coordinators,
            SchedulingDriver scheduling, CheckpointTriggers triggers, LongSupplier clock, RestartBackoff backoff,
            Job job) {
        this.jobId = executions.jobId();
        this.graph = executions.jobGraph();
        this.executions = executions;
        this.taskManagers = taskManagers;
        this.coordinators = coordinators;
        this.scheduling = scheduling;
        this.triggers = triggers;
        this.clock = clock;
        this.backoff = backoff;
        this.job = job;
    }

    public StreamingPhase phase() {
        return phase;
    }

    /** How restored checkpoints are checked (see {@link CheckpointRestore}'s rules 4 and 5). */
    public void restoreRules(int jobMaxParallelism, boolean allowNonRestoredState) {
        this.jobMaxParallelism = jobMaxParallelism;
        this.allowNonRestoredState = allowNonRestoredState;
    }

    /** Counted restarts so far. */
    public int restarts() {
        return restarts;
    }

    /** What the next deployments restore; null: empty state. */
    public CheckpointRestore restoreFrom() {
        return restoreFrom;
    }

    /** The run of the job the next deployments belong to. */
    public String runId() {
        return runId;
    }

    private static String newRunId() {
        return java.util.UUID.randomUUID().toString().substring(0, 8);
    }

    /**
     * Streaming failure: a global restart from the latest completed checkpoint, if the restart
     * strategy allows one; a failure during a restart is part of it.
     */
    public void restart(String cause) {
        if (!job.running()) {
            // Nothing to restart: before the start the job context keeps a failure until the job
            // runs, a job being cancelled ends as its user asked, and an ended one has its result.
            LOG.warn("Job {}: {}; no restart, the job is {}", jobId, cause, job.state());
            return;
        }
        if (phase != StreamingPhase.NORMAL) {
            LOG.info("Job {}: {} while it restarts", jobId, cause);
            completeIfIdle();
            return;
        }
        OptionalLong delay = backoff.onFailure(clock.getAsLong());
        if (delay.isEmpty()) {
            job.fail(cause + " (no restarts left: " + backoff.exhaustedReason() + ")");
            return;
        }
        restarts++;
        restartDelayMs = delay.getAsLong();
        restartCause = cause;
        phase = StreamingPhase.CANCELLING_FOR_RESTART;
        LOG.warn("Job {}: restarting every task from the latest checkpoint in {} ms (restart {}): {}", jobId,
                restartDelayMs, restarts, cause);
        scheduling.cancelWakeUp();
        triggers.restartBegins(cause);
        for (Execution execution : executions.all()) {
            if (execution.state() == ExecutionState.DEPLOYING || execution.state() == ExecutionState.RUNNING) {
                taskManagers.cancel(execution, "the job restarts: " + cause);
            }
        }
        completeIfIdle();
    }

    /**
     * A split enumerator's periodic work failed. While the job restores, the failure waits for
     * the restore's end ({@link #enumeratorFailure}) instead of being taken as part of a restart
     * that may not replace the failed enumerator.
     */
    public void enumeratorFailed(String cause) {
        if (job.running() && phase == StreamingPhase.RESTORING) {
            LOG.warn("Job {}: {} while the job restores; it fails over once restored unless the restore replaces"
                    + " the enumerators", jobId, cause);
            keepEnumeratorFailure(cause);
            return;
        }
        restart(cause);
    }

    /**
     * An enumerator failure that came before the restore this job master is about to begin (a
     * take-over, which does not start the job as a submission does): handled as if it came
     * during that restore.
     */
    public void keepEnumeratorFailure(String cause) {
        if (enumeratorFailure == null) {
            enumeratorFailure = cause;
        }
    }

    /**
     * Once no execution of a restarting job is active: reset them all, then, after the restart
     * delay, restore and deploy. The restore waits too because it replaces the enumerators: one
     * that failed again at once would otherwise use up every restart without any delay.
     */
    public void completeIfIdle() {
        if (phase != StreamingPhase.CANCELLING_FOR_RESTART || !executions.active().isEmpty()) {
            return;
        }
        long notBeforeMs = clock.getAsLong() + restartDelayMs;
        for (Execution execution : executions.all()) {
            executions.reset(execution, notBeforeMs, "the job restarts: " + restartCause);
        }
        phase = StreamingPhase.RESTORING;
        job.guardedAfter(restartDelayMs, "restoring after the restart delay", () -> {
            if (job.running() && phase == StreamingPhase.RESTORING) {
                restoreAndSchedule(true);
            }
        });
    }

    /**
     * Reads the latest completed checkpoint (the store's, so a new leader finds what the old one
     * completed), assigns its state to the tasks and its enumerator states to the source
     * coordinators, then schedules. The read is I/O: until it is back the job is RESTORING.
     *
     * @param restart false on the job's first start here: nothing to reset without a checkpoint
     */
    public void restoreAndSchedule(boolean restart) {
        phase = StreamingPhase.RESTORING;
        CheckpointCoordinator checkpoints = triggers.coordinator();
        if (checkpoints == null) {
            job.guarded("resetting the source coordinators",
                    () -> applyRestore(restart, Optional.empty()));
            return;
        }
        checkpoints.restoreLatest().whenComplete((latest, error) -> job.guarded(
                "restoring the latest checkpoint", () -> {
                    if (!job.running() || phase != StreamingPhase.RESTORING) {
                        return;
                    }
                    if (error != null) {
                        throw new IllegalStateException("cannot read the checkpoint the job restores: "
                                + Rpc.describe(error));
                    }
                    applyRestore(restart, latest);
                }));
    }

    /**
     * How a new leader takes over a recovered job's kept tasks: {@link #decide} plans
     * over where the job stands and, if it adopts, marks the executions running; {@link #adopted}
     * goes on once the job's state is set up for the adopted run.
     */
    interface Takeover {
        /** The adopted tasks' run id if the plan adopts them all, else null (the job restores instead). */
        String decide(CheckpointCoordinator.RestorePoint point) throws Exception;

        /**
         * After a {@link #decide} that restores: completes on the main thread once every kept task
         * it cancelled stopped, so that no restored attempt runs beside the attempt it replaces.
         */
        java.util.concurrent.CompletableFuture<Void> replacedTasksStopped();

        void adopted(CheckpointCoordinator.RestorePoint point) throws Exception;
    }

    /**
     * A new leader's first start of a recovered job whose TaskManagers kept its tasks: reads where
     * the job stands without deleting any file ({@link CheckpointCoordinator#restoreForAdoption}),
     * then either goes on with the adopted tasks (their run, the checkpoint they go on from as the
     * next restart's restore, the enumerators reset to its state) or restores as at any first start.
     */
    public void takeOver(Takeover takeover) {
        phase = StreamingPhase.RESTORING;
        CheckpointCoordinator checkpoints = triggers.coordinator();
        java.util.concurrent.CompletableFuture<CheckpointCoordinator.RestorePoint> read = checkpoints == null
                ? java.util.concurrent.CompletableFuture.completedFuture(
                        new CheckpointCoordinator.RestorePoint(Optional.empty(), false, 1))
                : checkpoints.restoreForAdoption();
        read.whenComplete((point, error) -> job.guarded("taking over the running tasks", () -> {
            if (!job.running() || phase != StreamingPhase.RESTORING) {
                return;
            }
            if (error != null) {
                throw new IllegalStateException("cannot read the checkpoint the job goes on from: "
                        + Rpc.describe(error));
            }
            String adoptedRun = takeover.decide(point);
            if (adoptedRun == null) {
                takeover.replacedTasksStopped().whenComplete((stopped, failure) -> job.guarded(
                        "restoring once the kept tasks stopped", () -> {
                            if (job.running() && phase == StreamingPhase.RESTORING) {
                                restoreAndSchedule(false);
                            }
                        }));
                return;
            }
            runId = adoptedRun;
            if (point.checkpoint().isPresent()) {
                CompletedCheckpoint checkpoint = point.checkpoint().get();
                restoreFrom = CheckpointRestore.of(checkpoint, graph,
                        jobMaxParallelism > 0 ? jobMaxParallelism : checkpoint.maxParallelism(), allowNonRestoredState);
                resetEnumerators(checkpoint.checkpointId(), enumeratorStates(checkpoint));
            }
            phase = StreamingPhase.NORMAL;
            takeover.adopted(point);
            restartFromKeptEnumeratorFailure();
        }));
    }

    /** Every source coordinator gets a new enumerator: the failure of an old one needs nothing more. */
    private void resetEnumerators(long checkpointId, Map<String, byte[]> states) throws Exception {
        coordinators.resetForRestart(checkpointId, states);
        if (enumeratorFailure != null) {
            LOG.info("Job {}: the restore replaced the split enumerators after: {}", jobId, enumeratorFailure);
            enumeratorFailure = null;
        }
    }

    /** The restore is over: an enumerator failure it kept restarts the job now (true). */
    private boolean restartFromKeptEnumeratorFailure() {
        if (enumeratorFailure == null) {
            return false;
        }
        String cause = enumeratorFailure;
        enumeratorFailure = null;
        restart(cause);
        return true;
    }

    private static Map<String, byte[]> enumeratorStates(CompletedCheckpoint checkpoint) {
        Map<String, byte[]> enumerators = new HashMap<>();
        for (OperatorCheckpointState operator : checkpoint.operators().values()) {
            operator.coordinatorStateBytes().ifPresent(bytes -> enumerators.put(operator.uid(), bytes));
        }
        return enumerators;
    }

    private void applyRestore(boolean restart, Optional<CompletedCheckpoint> latest) throws Exception {
        runId = newRunId();
        if (latest.isPresent()) {
            CompletedCheckpoint checkpoint = latest.get();
            restoreFrom = CheckpointRestore.of(checkpoint, graph,
                    jobMaxParallelism > 0 ? jobMaxParallelism : checkpoint.maxParallelism(), allowNonRestoredState);
            resetEnumerators(checkpoint.checkpointId(), enumeratorStates(checkpoint));
            LOG.info("Job {}: tasks restore {}", jobId, checkpoint);
        } else {
            restoreFrom = null;
            if (restart) {
                resetEnumerators(0, Map.of());
            }
        }
        phase = StreamingPhase.NORMAL;
        if (!restartFromKeptEnumeratorFailure()) {
            job.schedule();
        }
    }
}
