package io.duraflow.jobmanager.jobmaster;

import io.duraflow.jobmanager.jobmaster.execution.Execution;
import io.duraflow.jobmanager.jobmaster.execution.ExecutionGraph;
import io.duraflow.jobmanager.jobmaster.execution.JobEventLog;
import io.duraflow.jobmanager.jobmaster.execution.JobSettings;

import io.duraflow.jobmanager.jobmaster.checkpointing.CheckpointRestore;
import io.duraflow.jobmanager.jobmaster.failover.TakeoverActions;
import io.duraflow.jobmanager.jobmaster.scheduling.SchedulingStrategy;

import io.duraflow.checkpoint.CheckpointCoordinator;
import io.duraflow.checkpoint.CheckpointFailure;
import io.duraflow.checkpoint.CheckpointMetrics;
import io.duraflow.checkpoint.CheckpointStats;
import io.duraflow.checkpoint.CheckpointTask;
import io.duraflow.checkpoint.CompletedCheckpoint;
import io.duraflow.fs.FsPath;
import io.duraflow.jobmanager.recovery.AdoptionPlan;
import io.duraflow.jobmanager.recovery.RecoveryPlan;
import io.duraflow.jobmanager.recovery.ReportedTask;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.state.TaskStateSnapshot;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * What a job master does differently for a batch job ({@link BatchMode}) and a streaming one
 * ({@link StreamingMode}). The {@link JobContext} and {@link TaskEvents} hold what both do the same
 * way and ask the mode wherever they differ, so that shared code never asks which mode a job has;
 * the {@link JobMaster} hands its mode-specific requests (checkpoints, savepoints, recovery) to it.
 * A request that a mode cannot serve is refused by it with a sentence that says why.
 *
 * <p>Main thread only, like the JobMaster. The job is RUNNING whenever a task report reaches the
 * mode unless its method says otherwise.
 */
interface JobMode {

    /**
     * Builds the mode of one job, chosen once from its graph's runtime mode ({@link #of}). The
     * scheduling strategy comes first: the shared scheduling driver needs it, and the mode itself
     * is created last, over the finished {@link JobContext}.
     */
    interface Factory {
        SchedulingStrategy schedulingStrategy(ExecutionGraph executions, JobSettings settings,
                Supplier<JobEventLog> eventLog);

        JobMode create(JobContext job);
    }

    /** The factory of a job whose graph runs in {@code mode}. */
    static Factory of(io.duraflow.config.RuntimeMode mode) {
        return mode == io.duraflow.config.RuntimeMode.STREAMING ? StreamingMode.FACTORY : BatchMode.FACTORY;
    }

    // ------------------------------------------------------------------ life cycle

    /** The job just moved to RUNNING: its first deployments (a streaming job restores first). */
    void start() throws Exception;

    /**
     * Whether the job is in a restart (streaming: not {@code StreamingPhase.NORMAL}): then nothing
     * is scheduled, no checkpoint is planned and operator events are ignored. Never for a batch job.
     */
    boolean restarting();

    /** Counted restarts so far. */
    int restarts();

    /**
     * The job ended or left this leader: what the mode runs on its own (checkpoint triggers) stops.
     * The future completes on the main thread once nothing it started still writes the job's
     * durable state (a checkpoint that was finalizing), so the job's cleanup may begin.
     */
    CompletableFuture<Void> shutdown();

    /** What the next deployments restore; null: empty state. */
    CheckpointRestore restoreFrom();

    /** The run the next deployments belong to ({@code TaskDeployment.run_id}); "" for a batch job. */
    String runId();

    // ------------------------------------------------------------------ what the tasks report

    /** An execution of the job now runs (also when the job is not RUNNING). */
    void executionRunning();

    /** An execution finished (also when the job is not RUNNING). */
    void executionFinished(Execution execution);

    /**
     * An active execution stopped (finished or cancelled) while the job was not CANCELLING: if a
     * restart waits for the executions to stop, it goes on, and the stop needs nothing else (true).
     */
    boolean stoppedForRestart();

    /** A task failed; its execution is stopped already. */
    void taskFailed(Execution execution, String cause, String missingPartitionId, boolean nonRetriable);

    /** A TaskManager is gone; {@code lostActive} are the executions that ran there, now FAILED. */
    void taskManagerLost(String tmId, List<Execution> lostActive);

    /** A split enumerator's periodic work failed with {@code cause} (in any state of the job). */
    void enumeratorFailed(String cause);

    /** A task processed all its input (in any state of the job); see {@link JobMaster#onInputEnded}. */
    void inputEnded(AttemptId attempt) throws Exception;

    // ------------------------------------------------------------------ checkpoints and savepoints

    /** See {@link JobMaster#enableCheckpoints}. */
    void enableCheckpoints(JobMaster.CheckpointSetup setup);

    /** See {@link JobMaster#triggerSavepoint}. */
    CompletableFuture<CompletedCheckpoint> triggerSavepoint(FsPath targetDirectory, boolean cancelJob);

    /** The job's checkpoint coordinator, or null (batch, or checkpointing off). */
    CheckpointCoordinator checkpointCoordinator();

    /** The job's recent checkpoints, oldest first; empty without checkpointing. */
    List<CheckpointStats> checkpointHistory();

    /** A task's part of a checkpoint is durable; in any state of the job. */
    void acknowledgeCheckpoint(CheckpointTask task, long checkpointId, TaskStateSnapshot state,
            CheckpointMetrics metrics);

    /** A task will not take its part of a checkpoint; in any state of the job. */
    void declineCheckpoint(CheckpointTask task, long checkpointId, CheckpointFailure failure);

    // ------------------------------------------------------------------ taking a job over from an earlier leader

    /** See {@link JobMaster#restore}; before the job starts. */
    int restore(RecoveryPlan plan) throws Exception;

    /** See {@link JobMaster#adopt}; before the job starts. */
    List<Execution> adopt(AdoptionPlan plan, Function<String, String> tmAddress);

    /** See {@link JobMaster#startTakingOver}; the job is CREATED. */
    void startTakingOver(List<ReportedTask> reports, TakeoverActions actions, Function<String, String> tmAddress);

    /** The tasks a recovery by this leader runs again (see {@link JobMetrics#tasksToRunAgain}). */
    int tasksToRunAgain(JobStatus status);
}
