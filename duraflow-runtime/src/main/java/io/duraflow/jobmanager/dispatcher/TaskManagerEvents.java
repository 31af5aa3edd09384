package io.duraflow.jobmanager.dispatcher;

import io.duraflow.checkpoint.CheckpointFailure;
import io.duraflow.checkpoint.CheckpointMessages;
import io.duraflow.checkpoint.CheckpointMetrics;
import io.duraflow.checkpoint.StateHandleCodec;
import io.duraflow.jobmanager.jobmaster.JobMaster;
import io.duraflow.jobmanager.resourcemanager.ResourceManager;
import io.duraflow.mailbox.Mailbox;
import io.duraflow.rpc.Rpc;
import io.duraflow.rpc.proto.AcknowledgeCheckpointRequest;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.DeclineCheckpointRequest;
import io.duraflow.rpc.proto.OperatorEventFromTask;
import io.duraflow.rpc.proto.RegisterTaskManagerRequest;
import io.duraflow.rpc.proto.TaskInputEnded;
import io.duraflow.rpc.proto.TaskMetricsSample;
import io.duraflow.rpc.proto.TaskStateUpdate;
import io.duraflow.state.TaskStateSnapshot;
import io.grpc.Status;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What TaskManagers tell this leader, routed to the jobs' masters: registrations (after the
 * finishes they carried from earlier leaderships are logged), task state updates, metrics,
 * operator events, checkpoint acknowledgements and declines, ended inputs and lost TaskManagers;
 * attempts that no job here runs are cancelled. Reports of jobs this leader does not run are
 * dropped, as are updates of other leadership sessions.
 *
 * <p>Threading: main thread only.
 */
final class TaskManagerEvents {
    private static final Logger LOG = LoggerFactory.getLogger(TaskManagerEvents.class);

    private final String sessionId;
    private final JobRegistry registry;
    private final StoredJobRecovery recovery;
    private final ResourceManager resourceManager;
    private final Mailbox mainThread;
    /** True once the dispatcher's leadership ended. */
    private final BooleanSupplier closed;
    /** Stray tasks already logged by {@link #onTasksRunning} ({@code tmId/attempt}), so each is logged once. */
    private final Set<String> strayTasksTold = new HashSet<>();

    TaskManagerEvents(String sessionId, JobRegistry registry, StoredJobRecovery recovery,
            ResourceManager resourceManager, Mailbox mainThread, BooleanSupplier closed) {
        this.sessionId = sessionId;
        this.registry = registry;
        this.recovery = recovery;
        this.resourceManager = resourceManager;
        this.mainThread = mainThread;
        this.closed = closed;
    }

    /**
     * A TaskManager registers. The finishes it carried from earlier leaderships are logged first
     * ({@link StoredJobRecovery#takeEarlierFinishes}); only once they are durable is it registered
     * with the partitions it kept, which may let a pending recovery plan.
     *
     * @return completes on the main thread once registered; fails with UNAVAILABLE if a finish
     *     could not be logged or leadership ended meanwhile (the TaskManager registers again)
     */
    CompletableFuture<Void> registerTaskManager(RegisterTaskManagerRequest request) {
        mainThread.assertRunningInMailbox();
        return recovery.takeEarlierFinishes(sessionId, request.getTmId(), request.getAddress(),
                request.getEarlierFinishedReportsList()).thenRun(() -> {
                    mainThread.assertRunningInMailbox();
                    if (closed.getAsBoolean()) {
                        throw Status.UNAVAILABLE.withDescription("this JobManager is no longer the leader")
                                .asRuntimeException();
                    }
                    resourceManager.register(request.getTmId(), request.getAddress(), request.getSlots(),
                            request.getHeldPartitionsList(), request.getRegistrationId(), request.getHeldTasksList());
                });
    }

    /**
     * A TaskManager's heartbeat lists the attempts it runs (or builds the plan of). One that no job
     * master here runs on that TaskManager ({@link JobMaster#runsOn}) is stopped: nobody would
     * ever ask it to, and it holds its slot for good (this leader counts that slot free). It
     * happens when a TaskManager's registration times out on its side while this leader registers
     * it, and it registers again: this leader takes the second registration for a new TaskManager,
     * fails what it had deployed there and counts the slots free, while the TaskManager, still in
     * the same session, accepts and runs those deployments (a failover test saw a job fail after
     * 10 restarts, each deployment refused as all slots were busy). A cancellation whose call was
     * lost is sent again the same way. A cancelled kept task it no longer lists has stopped
     * ({@link ResourceManager#tasksRunning}).
     */
    void onTasksRunning(String tmId, List<AttemptId> attempts) {
        mainThread.assertRunningInMailbox();
        resourceManager.tasksRunning(tmId, attempts);
        for (AttemptId attempt : attempts) {
            JobMaster job = registry.job(attempt.getJobId());
            if (job != null && job.runsOn(attempt, tmId)) {
                continue;
            }
            if (recovery.isPending(attempt.getJobId()) || resourceManager.isHeld(tmId, attempt)) {
                continue;  // kept across the leader change: the job's recovery adopts or cancels it
            }
            if (strayTasksTold.size() > 10_000) {
                strayTasksTold.clear();
            }
            if (strayTasksTold.add(tmId + "/" + Rpc.describe(attempt))) {
                LOG.info("TaskManager {} runs {}, which no job here runs there; cancelling it", tmId,
                        Rpc.describe(attempt));
            }
            resourceManager.cancelStray(tmId, attempt);
        }
    }

    void onTaskStateUpdate(TaskStateUpdate update) {
        mainThread.assertRunningInMailbox();
        if (!update.getJmSessionId().equals(sessionId)) {
            LOG.info("Ignoring a task update for session {}", update.getJmSessionId());
            return;
        }
        JobMaster job = registry.job(update.getAttempt().getJobId());
        if (job != null) {
            job.onTaskStateUpdate(update);
        }
    }

    /** A running task's counters from its TaskManager's heartbeat (of this session). */
    void onTaskMetrics(AttemptId attempt, TaskMetricsSample sample) {
        mainThread.assertRunningInMailbox();
        JobMaster job = registry.job(attempt.getJobId());
        if (job != null) {
            job.onTaskMetrics(attempt, sample);
        }
    }

    void onOperatorEvent(OperatorEventFromTask event) {
        mainThread.assertRunningInMailbox();
        JobMaster job = registry.job(event.getAttempt().getJobId());
        if (job != null) {
            job.onOperatorEvent(event.getAttempt(), event.getNodeId(), event.getEvent());
        }
    }

    /** A task's part of a checkpoint is durable; INVALID_ARGUMENT if its state handles cannot be decoded. */
    void acknowledgeCheckpoint(AcknowledgeCheckpointRequest request) {
        mainThread.assertRunningInMailbox();
        TaskStateSnapshot state;
        CheckpointMetrics metrics;
        try {
            state = StateHandleCodec.fromProto(request.getState());
            metrics = CheckpointMessages.fromProto(request.getMetrics());
        } catch (IllegalArgumentException e) {
            throw Status.INVALID_ARGUMENT.withDescription("acknowledgement of checkpoint " + request.getCheckpointId()
                    + " by " + Rpc.describe(request.getAttempt()) + ": " + e.getMessage()).asRuntimeException();
        }
        JobMaster job = registry.job(request.getAttempt().getJobId());
        if (job == null) {
            // A job that ended and left memory: the coordinator that could delete its files is gone
            // too; the job directory's cleanup removes them.
            return;
        }
        job.acknowledgeCheckpoint(CheckpointMessages.fromProto(request.getAttempt()), request.getCheckpointId(), state,
                metrics);
    }

    /** A task declined a checkpoint; INVALID_ARGUMENT if the reason is unknown. */
    void declineCheckpoint(DeclineCheckpointRequest request) {
        mainThread.assertRunningInMailbox();
        CheckpointFailure failure;
        try {
            failure = CheckpointMessages.fromProto(request.getFailure());
        } catch (IllegalArgumentException e) {
            throw Status.INVALID_ARGUMENT.withDescription("decline of checkpoint " + request.getCheckpointId() + " by "
                    + Rpc.describe(request.getAttempt()) + ": " + e.getMessage()).asRuntimeException();
        }
        JobMaster job = registry.job(request.getAttempt().getJobId());
        if (job != null) {
            job.declineCheckpoint(CheckpointMessages.fromProto(request.getAttempt()), request.getCheckpointId(),
                    failure);
        }
    }

    /** A streaming task ended its input and waits for its final checkpoint. */
    void onInputEnded(TaskInputEnded report) {
        mainThread.assertRunningInMailbox();
        JobMaster job = registry.job(report.getAttempt().getJobId());
        if (job != null) {
            job.onInputEnded(report.getAttempt());
        }
    }

    /** The resource manager lost a TaskManager: every job fails what ran there. */
    void taskManagerLost(String tmId) {
        for (JobMaster job : registry.jobs()) {
            job.onTaskManagerLost(tmId);
        }
    }
}
