package io.duraflow.jobmanager.jobmaster;

import io.duraflow.jobmanager.jobmaster.execution.Execution;
import io.duraflow.jobmanager.jobmaster.execution.ExecutionGraph;
import io.duraflow.jobmanager.jobmaster.execution.JobEventLog;
import io.duraflow.jobmanager.jobmaster.execution.JobSettings;

import io.duraflow.jobmanager.jobmaster.checkpointing.CheckpointRestore;
import io.duraflow.jobmanager.jobmaster.checkpointing.JobSavepoints;
import io.duraflow.jobmanager.jobmaster.coordination.SourceCoordinator;
import io.duraflow.jobmanager.jobmaster.failover.BatchFailoverStrategy;
import io.duraflow.jobmanager.jobmaster.failover.FailoverHandler;
import io.duraflow.jobmanager.jobmaster.failover.FailoverStrategy;
import io.duraflow.jobmanager.jobmaster.failover.RecoveryRestore;
import io.duraflow.jobmanager.jobmaster.failover.RestartBackoff;
import io.duraflow.jobmanager.jobmaster.failover.TakeoverActions;
import io.duraflow.jobmanager.jobmaster.scheduling.BlockingAdaptiveScheduling;
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
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A batch job ({@link io.duraflow.config.RuntimeMode#BATCH}): a vertex runs once its inputs are
 * finished ({@link BlockingAdaptiveScheduling}); a failure costs what the {@link
 * BatchFailoverStrategy} says, carried out by the {@link FailoverHandler} (the failed tasks, and
 * finished producers whose output is lost, run again, or the job fails); a job a new leader
 * recovers keeps what survived the earlier one ({@link RecoveryRestore}) and adopts the tasks its
 * TaskManagers kept running ({@link #adopt}). It takes no checkpoints or savepoints.
 *
 * <p>Main thread only, like the JobMaster.
 */
final class BatchMode implements JobMode {
    /** The job's life is logged under the JobMaster's name, which log settings and tests select. */
    private static final Logger LOG = LoggerFactory.getLogger(JobMaster.class);

    static final JobMode.Factory FACTORY = new JobMode.Factory() {
        @Override
        public SchedulingStrategy schedulingStrategy(ExecutionGraph executions, JobSettings settings,
                Supplier<JobEventLog> eventLog) {
            return new BlockingAdaptiveScheduling(executions, settings, eventLog);
        }

        @Override
        public JobMode create(JobContext job) {
            return new BatchMode(job);
        }
    };

    private final JobContext job;
    private final FailoverHandler failover;
    /** Tasks with earlier attempts that a recovery runs again (see {@link JobMetrics#tasksToRunAgain}). */
    private int rerunTasks;

    BatchMode(JobContext job) {
        this.job = job;
        this.failover = new FailoverHandler(new BatchFailoverStrategy(), job.executions(), job.taskManagers(),
                job.coordinators(), job::eventLog, job.clock(), RestartBackoff.start(job.settings().restart()));
    }

    @Override
    public void start() {
        if (job.executions().allFinished()) {
            // Recovery restored every task: the job had finished, only its result was not stored.
            job.terminate(JobMasterState.FINISHED, "");
            return;
        }
        job.scheduleNow();
    }

    @Override
    public boolean restarting() {
        return false;
    }

    @Override
    public int restarts() {
        return failover.restarts();
    }

    @Override
    public CompletableFuture<Void> shutdown() {
        // Nothing runs on its own besides the shared parts, which the job context stops.
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public CheckpointRestore restoreFrom() {
        return null;
    }

    @Override
    public String runId() {
        return "";
    }

    // ------------------------------------------------------------------ what the tasks report

    @Override
    public void executionRunning() {
    }

    @Override
    public void executionFinished(Execution execution) {
    }

    @Override
    public boolean stoppedForRestart() {
        return false;
    }

    @Override
    public void taskFailed(Execution execution, String cause, String missingPartitionId, boolean nonRetriable) {
        failedOver(new FailoverStrategy.TaskFailed(execution, cause, missingPartitionId, nonRetriable));
    }

    @Override
    public void taskManagerLost(String tmId, List<Execution> lostActive) {
        failedOver(new FailoverStrategy.TaskManagerLost(tmId, lostActive));
    }

    /** Has the failover handler carry out what the strategy decides, and goes on from there. */
    private void failedOver(FailoverStrategy.Failure failure) {
        FailoverHandler.Outcome outcome = failover.onFailure(failure);
        if (outcome instanceof FailoverHandler.FailJob failJob) {
            job.terminate(JobMasterState.FAILED, failJob.cause());
        } else if (outcome instanceof FailoverHandler.ExecutionsReset) {
            job.scheduleNow();
        }
    }

    @Override
    public void enumeratorFailed(String cause) {
        job.terminate(JobMasterState.FAILED, cause);
    }

    /** Only streaming tasks wait for a checkpoint after the end of their input. */
    @Override
    public void inputEnded(AttemptId attempt) {
    }

    // ------------------------------------------------------------------ no checkpoints

    @Override
    public void enableCheckpoints(JobMaster.CheckpointSetup setup) {
        throw new IllegalStateException("job " + job.jobId() + " is a batch job: it takes no checkpoints");
    }

    @Override
    public CompletableFuture<CompletedCheckpoint> triggerSavepoint(FsPath targetDirectory, boolean cancelJob) {
        return JobSavepoints.refusedForBatchJob(job.jobId());
    }

    @Override
    public CheckpointCoordinator checkpointCoordinator() {
        return null;
    }

    @Override
    public List<CheckpointStats> checkpointHistory() {
        return List.of();
    }

    @Override
    public void acknowledgeCheckpoint(CheckpointTask task, long checkpointId, TaskStateSnapshot state,
            CheckpointMetrics metrics) {
        LOG.warn("Job {}: acknowledgement of checkpoint {} by {}, but the job takes no checkpoints: ignored",
                job.jobId(), checkpointId, task);
    }

    @Override
    public void declineCheckpoint(CheckpointTask task, long checkpointId, CheckpointFailure failure) {
    }

    // ------------------------------------------------------------------ recovery by a new leader

    @Override
    public int restore(RecoveryPlan plan) throws Exception {
        int restored = RecoveryRestore.apply(plan, job.executions(), job.coordinators(), job.eventLog());
        job.takeover().restoredTasks(restored);
        job.takeover().takenOverAt(job.clock().getAsLong());
        rerunTasks = plan.nextAttempts().size();
        return restored;
    }

    @Override
    public List<Execution> adopt(AdoptionPlan plan, Function<String, String> tmAddress) {
        ExecutionGraph executions = job.executions();
        List<Execution> adopted = new ArrayList<>();
        for (var decision : plan.adopted()) {
            Execution execution = executions.executions(decision.key().vertex())[decision.key().subtask()];
            execution.adoptRunning(decision.attempt(), decision.tmId(), tmAddress.apply(decision.tmId()));
            adopted.add(execution);
        }
        plan.adoptedSplits().forEach((node, perSubtask) -> {
            SourceCoordinator source = job.coordinators().source(node);
            if (source != null) {
                perSubtask.forEach(source::markAssigned);
            }
        });
        Map<String, List<Execution>> byTaskManager = new LinkedHashMap<>();
        adopted.forEach(e -> byTaskManager.computeIfAbsent(e.tmId(), tm -> new ArrayList<>()).add(e));
        byTaskManager.forEach(job.eventLog()::executionsDeployed);
        job.takeover().adoptedTasks(adopted.size());
        return adopted;
    }

    @Override
    public void startTakingOver(List<ReportedTask> reports, TakeoverActions actions,
            Function<String, String> tmAddress) {
        throw new IllegalStateException("job " + job.jobId() + " is a batch job; its kept tasks are adopted by #adopt");
    }

    @Override
    public int tasksToRunAgain(JobStatus status) {
        return rerunTasks;
    }
}
