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
import io.duraflow.jobmanager.jobmaster.failover.RestartBackoff;
import io.duraflow.jobmanager.jobmaster.failover.StreamingRestart;
import io.duraflow.jobmanager.jobmaster.failover.StreamingTakeover;
import io.duraflow.jobmanager.jobmaster.failover.TakeoverActions;
import io.duraflow.jobmanager.jobmaster.scheduling.PipelinedScheduling;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A streaming job ({@link io.duraflow.config.RuntimeMode#STREAMING}): every task runs at once
 * ({@link PipelinedScheduling}) and, with checkpointing on, the job takes checkpoints through a
 * {@link CheckpointCoordinator} ({@link StreamingCheckpoints}, {@link CheckpointTriggers}) and
 * savepoints on request ({@link JobSavepoints}). Any task failure, lost TaskManager or failed
 * enumerator restarts the whole job from its latest completed checkpoint ({@link
 * StreamingRestart}); while it restarts ({@link StreamingPhase} not NORMAL) nothing is scheduled
 * or checkpointed. A new leader takes over the tasks its TaskManagers kept running, or restores
 * ({@link StreamingTakeover}).
 *
 * <p>Main thread only, like the JobMaster.
 */
final class StreamingMode implements JobMode {
    /** The job's life is logged under the JobMaster's name, which log settings and tests select. */
    private static final Logger LOG = LoggerFactory.getLogger(JobMaster.class);

    static final JobMode.Factory FACTORY = new JobMode.Factory() {
        @Override
        public SchedulingStrategy schedulingStrategy(ExecutionGraph executions, JobSettings settings,
                Supplier<JobEventLog> eventLog) {
            return new PipelinedScheduling(executions);
        }

        @Override
        public JobMode create(JobContext job) {
            return new StreamingMode(job);
        }
    };

    private final JobContext job;
    /** The checkpoint coordinator's view of the job's tasks. */
    private final StreamingCheckpoints checkpointTasks;
    /** Holds the job's checkpoint coordinator (null while checkpointing is off). */
    private final CheckpointTriggers triggers;
    private final StreamingRestart restart;
    private final JobSavepoints savepoints;

    StreamingMode(JobContext job) {
        this.job = job;
        ExecutionGraph executions = job.executions();
        this.checkpointTasks = new StreamingCheckpoints(job.services().sessionId(), executions,
                job.services().gateways(), job.coordinators(), job::runsNormally);
        this.triggers = new CheckpointTriggers(executions, job.mainThread());
        this.restart = new StreamingRestart(executions, job.taskManagers(), job.coordinators(), job.scheduling(),
                triggers, job.clock(), RestartBackoff.start(job.settings().restart()), new RestartsJob(job));
        this.savepoints = new JobSavepoints(job.jobId(), triggers, job::runsNormally,
                () -> job.guarded("cancelling the job after its savepoint", job::cancelNow));
    }

    /** What the restart does to the job, through its context. */
    private static final class RestartsJob implements StreamingRestart.Job {
        private final JobContext job;

        RestartsJob(JobContext job) {
            this.job = job;
        }

        @Override
        public boolean running() {
            return job.isRunning();
        }

        @Override
        public String state() {
            return job.state().name();
        }

        @Override
        public void fail(String cause) {
            job.terminate(JobMasterState.FAILED, cause);
        }

        @Override
        public void guarded(String what, StreamingRestart.Step step) {
            job.guarded(what, step::run);
        }

        @Override
        public void guardedAfter(long delayMs, String what, StreamingRestart.Step step) {
            job.mainThread().schedule(() -> job.guarded(what, step::run), delayMs);
        }

        @Override
        public void schedule() {
            job.scheduleNow();
        }
    }

    /** A new job finds no checkpoint; a job a new leader recovers finds the latest one. */
    @Override
    public void start() {
        restart.restoreAndSchedule(false);
    }

    @Override
    public boolean restarting() {
        return restart.phase() != StreamingPhase.NORMAL;
    }

    @Override
    public int restarts() {
        return restart.restarts();
    }

    @Override
    public CompletableFuture<Void> shutdown() {
        return triggers.shutdown();
    }

    @Override
    public CheckpointRestore restoreFrom() {
        return restart.restoreFrom();
    }

    @Override
    public String runId() {
        return restart.runId();
    }

    // ------------------------------------------------------------------ what the tasks report

    @Override
    public void executionRunning() {
        if (restart.phase() == StreamingPhase.NORMAL) {
            triggers.executionRunning();
        }
    }

    @Override
    public void executionFinished(Execution execution) {
        if (job.runsNormally()) {
            triggers.executionFinished(execution);
        }
    }

    @Override
    public boolean stoppedForRestart() {
        if (restart.phase() != StreamingPhase.CANCELLING_FOR_RESTART) {
            return false;
        }
        restart.completeIfIdle();
        return true;
    }

    @Override
    public void taskFailed(Execution execution, String cause, String missingPartitionId, boolean nonRetriable) {
        if (nonRetriable) {
            // As in batch: running it again from a checkpoint would fail the same way.
            job.terminate(JobMasterState.FAILED, "task " + execution + " failed: " + cause
                    + " (not retried: running the task again cannot succeed)");
            return;
        }
        restart.restart("task " + execution + " failed: " + cause);
    }

    @Override
    public void taskManagerLost(String tmId, List<Execution> lostActive) {
        if (!lostActive.isEmpty()) {
            restart.restart("TaskManager " + tmId + " was lost");
        }
    }

    /** A restart brings every enumerator back to its checkpointed state. */
    @Override
    public void enumeratorFailed(String cause) {
        restart.enumeratorFailed(cause);
    }

    /**
     * Once every source task's input ended, the final checkpoint is triggered at once; once every
     * task's did, another (see {@link JobMaster#onInputEnded} and {@link CheckpointTriggers}).
     */
    @Override
    public void inputEnded(AttemptId attempt) throws Exception {
        Execution execution = job.executions().current(attempt);
        if (!job.runsNormally() || execution == null || !execution.state().isActive()) {
            return;
        }
        if (execution.state() == ExecutionState.DEPLOYING) {
            job.nowRunning(execution, "its input ended");
        }
        triggers.inputEnded(execution);
    }

    // ------------------------------------------------------------------ checkpoints and savepoints

    @Override
    public void enableCheckpoints(JobMaster.CheckpointSetup setup) {
        CheckpointCoordinator coordinator = new CheckpointCoordinator(job.jobId(), setup.config(),
                setup.directories(), new CheckpointCoordinator.Services(setup.fileSystem(), job.mainThread(),
                        setup.io(), job.clock(), setup.idCounter(), setup.store(), checkpointTasks, checkpointTasks,
                        cause -> job.guarded("failing over after checkpoint failures",
                                () -> restart.restart("checkpoints failed: " + cause))));
        if (setup.initialRestore() != null) {
            coordinator.initialRestore(setup.initialRestore());
        }
        restart.restoreRules(setup.config().maxParallelism(), setup.allowNonRestoredState());
        triggers.coordinator(coordinator);
    }

    @Override
    public CompletableFuture<CompletedCheckpoint> triggerSavepoint(FsPath targetDirectory, boolean cancelJob) {
        return savepoints.trigger(targetDirectory, cancelJob);
    }

    @Override
    public CheckpointCoordinator checkpointCoordinator() {
        return triggers.coordinator();
    }

    @Override
    public List<CheckpointStats> checkpointHistory() {
        return triggers.history();
    }

    /** Also after the job ended: the coordinator then deletes the files the task wrote. */
    @Override
    public void acknowledgeCheckpoint(CheckpointTask task, long checkpointId, TaskStateSnapshot state,
            CheckpointMetrics metrics) {
        triggers.acknowledge(task, checkpointId, state, metrics);
    }

    @Override
    public void declineCheckpoint(CheckpointTask task, long checkpointId, CheckpointFailure failure) {
        triggers.decline(task, checkpointId, failure);
    }

    // ------------------------------------------------------------------ taking the job over from an earlier leader

    /** A streaming job restores its latest completed checkpoint instead of a batch recovery plan. */
    @Override
    public int restore(RecoveryPlan plan) {
        throw new IllegalStateException("job " + job.jobId() + " is a streaming job: it restores its latest"
                + " checkpoint as it starts, or takes its kept tasks over by #startTakingOver");
    }

    @Override
    public List<Execution> adopt(AdoptionPlan plan, Function<String, String> tmAddress) {
        throw new IllegalStateException("job " + job.jobId() + " is a streaming job; its kept tasks are taken"
                + " over by #startTakingOver");
    }

    /**
     * Adopts the kept tasks where {@link io.duraflow.jobmanager.recovery.AdoptionPlanner} proves it
     * correct, else cancels them and restores the latest checkpoint (see {@link StreamingTakeover}).
     */
    @Override
    public void startTakingOver(List<ReportedTask> reports, TakeoverActions actions,
            Function<String, String> tmAddress) {
        job.guarded("starting the job", () -> {
            job.moveTo(JobMasterState.RUNNING, "started");
            job.takeover().takenOverAt(job.clock().getAsLong());
            LOG.info("Job {} ({}) running: {} vertices, fingerprint {}; deciding on {} kept tasks", job.jobId(),
                    job.graph().jobName(), job.graph().vertices().size(), job.graph().fingerprint(), reports.size());
            String failedBefore = job.takeEnumeratorFailureBeforeStart();
            if (failedBefore != null) {
                // JobContext#start, which a take-over bypasses, would fail over from it: the take-over
                // does once it adopted or replaced the kept tasks, unless it replaces the enumerators.
                restart.keepEnumeratorFailure(failedBefore);
            }
            restart.takeOver(new StreamingTakeover(job.jobId(), job.graph(), job.executions(), checkpointTasks,
                    triggers, reports, actions, step -> () -> job.guarded("going on with the adopted tasks", step::run),
                    job.takeover()::adoptedTasks, tmAddress));
        });
    }

    /** After a recovery every task runs again, restored from the latest checkpoint. */
    @Override
    public int tasksToRunAgain(JobStatus status) {
        return status.getVerticesList().stream().mapToInt(v -> v.getParallelism()).sum();
    }
}
