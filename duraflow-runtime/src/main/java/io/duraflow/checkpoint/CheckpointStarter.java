package io.duraflow.checkpoint;

import io.duraflow.fs.FsPath;
import io.duraflow.mailbox.Mailbox;
import io.duraflow.state.CheckpointDirectories;
import io.duraflow.util.Futures;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts the {@link CheckpointCoordinator}'s checkpoints and savepoints, its rule 2: plans the
 * checkpoint, draws its id from the counter, makes it pending with its expiry timer, has the
 * operator coordinators snapshot and only then triggers the tasks the plan names. From then on
 * the checkpoint waits for acknowledgements ({@link CheckpointAcknowledgements}); a checkpoint
 * that cannot go on (coordinators failed, expired) goes back to the coordinator to be aborted
 * ({@link CheckpointProgress}).
 *
 * <p>Main thread only: the id is drawn on the coordinator's sequential I/O executor ({@link
 * MainThreadIo}), the coordinators' snapshots may complete on any thread, and both results are
 * handed back to the main thread before anything is touched.
 */
final class CheckpointStarter {
    private static final Logger LOG = LoggerFactory.getLogger(CheckpointStarter.class);

    private final String jobId;
    private final CheckpointCoordinatorConfig config;
    private final CheckpointDirectories directories;
    private final Mailbox mainThread;
    private final MainThreadIo io;
    private final LongSupplier clockMs;
    private final CheckpointIdCounter idCounter;
    private final CheckpointTasks tasks;
    private final OperatorCoordinatorCheckpoints coordinators;
    private final PendingCheckpoints pending;
    private final PeriodicTriggerScheduler scheduler;
    private final CheckpointProgress progress;

    /**
     * @param io the coordinator's sequential I/O, where the id is drawn
     * @param scheduler told of every trigger, and to reschedule whenever one did not start
     */
    CheckpointStarter(String jobId, CheckpointCoordinatorConfig config, CheckpointDirectories directories,
            CheckpointCoordinator.Services services, MainThreadIo io, PendingCheckpoints pending,
            PeriodicTriggerScheduler scheduler, CheckpointProgress progress) {
        this.jobId = jobId;
        this.config = config;
        this.directories = directories;
        this.mainThread = services.mainThread();
        this.io = io;
        this.clockMs = services.clockMs();
        this.idCounter = services.idCounter();
        this.tasks = services.tasks();
        this.coordinators = services.coordinators();
        this.pending = pending;
        this.scheduler = scheduler;
        this.progress = progress;
    }

    /**
     * Triggers a checkpoint, or a savepoint into a new directory under {@code savepointTarget};
     * the result completes on the main thread when it completed or was aborted.
     */
    CompletableFuture<CompletedCheckpoint> trigger(CheckpointKind kind, FsPath savepointTarget) {
        if (progress.isShutdown()) {
            return CompletableFuture.failedFuture(new CheckpointException(new CheckpointFailure(0,
                    CheckpointFailureReason.COORDINATOR_SHUTDOWN, "the checkpoint coordinator is shut down", null)));
        }
        long timestampMs = clockMs.getAsLong();
        scheduler.onTriggered(timestampMs);
        Optional<CheckpointPlan> plan = tasks.planCheckpoint();
        if (plan.isEmpty()) {
            LOG.info("Not triggering a checkpoint of job {}: not every task is running", jobId);
            scheduler.reschedule();
            return CompletableFuture.failedFuture(new CheckpointException(new CheckpointFailure(0,
                    CheckpointFailureReason.NOT_ALL_TASKS_RUNNING, "not every task of the job is running", null)));
        }
        pending.triggerStarted();
        scheduler.reschedule();
        return io.run(idCounter::getAndIncrement).handle((id, error) -> {
            mainThread.assertRunningInMailbox();
            pending.triggerEnded();
            if (error != null) {
                CheckpointFailure failure = new CheckpointFailure(0, CheckpointFailureReason.IO_FAILURE,
                        "cannot draw a checkpoint id: " + MainThreadIo.describe(error), null);
                LOG.warn("Job {}: {}", jobId, failure.describe());
                scheduler.reschedule();
                return CompletableFuture.<CompletedCheckpoint>failedFuture(new CheckpointException(failure));
            }
            if (progress.isShutdown()) {
                return CompletableFuture.<CompletedCheckpoint>failedFuture(new CheckpointException(new CheckpointFailure(
                        id, CheckpointFailureReason.COORDINATOR_SHUTDOWN, "the checkpoint coordinator shut down", null)));
            }
            // Tasks may have failed or restarted while the id was drawn: plan again with the attempts running now.
            Optional<CheckpointPlan> current = tasks.planCheckpoint();
            if (current.isEmpty()) {
                LOG.info("Not starting checkpoint {} of job {}: not every task is running any more", id, jobId);
                scheduler.reschedule();
                return CompletableFuture.<CompletedCheckpoint>failedFuture(new CheckpointException(new CheckpointFailure(
                        id, CheckpointFailureReason.NOT_ALL_TASKS_RUNNING, "not every task of the job is running",
                        null)));
            }
            return startPending(id, timestampMs, kind, savepointTarget, current.get());
        }).thenCompose(future -> future);
    }

    private CompletableFuture<CompletedCheckpoint> startPending(long id, long timestampMs, CheckpointKind kind,
            FsPath savepointTarget, CheckpointPlan plan) {
        FsPath directory = kind == CheckpointKind.SAVEPOINT
                ? savepointTarget.resolve("savepoint-" + jobId + "-" + id) : directories.checkpoint(id);
        PendingCheckpoint checkpoint = pending.start(jobId, id, timestampMs, kind, plan, directory);
        long expiresInMs = Math.max(0, timestampMs + config.timeoutMs() - clockMs.getAsLong());
        checkpoint.timeout = mainThread.schedule(() -> expire(checkpoint), expiresInMs);
        LOG.info("Triggering {} {} of job {} ({} tasks to trigger, {} to acknowledge)",
                kind.name().toLowerCase(Locale.ROOT), id, jobId, plan.toTrigger().size(),
                plan.toAcknowledge().size());
        CompletableFuture<Map<String, byte[]>> snapshots;
        try {
            snapshots = coordinators.snapshotCoordinators(id);
        } catch (RuntimeException e) {
            snapshots = CompletableFuture.failedFuture(e);
        }
        snapshots.whenComplete((states, error) -> mainThread.execute(() -> onCoordinatorsSnapshotted(checkpoint,
                states, error)));
        return checkpoint.result;
    }

    private void onCoordinatorsSnapshotted(PendingCheckpoint checkpoint, Map<String, byte[]> states, Throwable error) {
        if (checkpoint.state() != PendingCheckpoint.State.TRIGGERING) {
            LOG.info("Coordinator snapshots of checkpoint {} of job {} arrived in state {}: dropped",
                    checkpoint.checkpointId, jobId, checkpoint.state());
            return;
        }
        if (error != null) {
            Throwable cause = Futures.unwrap(error);
            progress.abort(checkpoint, cause instanceof SnapshotDeclinedException declined
                    ? new CheckpointFailure(checkpoint.checkpointId, declined.reason(), declined.getMessage(), null)
                    : new CheckpointFailure(checkpoint.checkpointId, CheckpointFailureReason.COORDINATOR_FAILURE,
                            "an operator coordinator could not snapshot: " + MainThreadIo.describe(error), null));
            return;
        }
        checkpoint.coordinatorStates(states);
        checkpoint.transition(PendingCheckpoint.State.AWAITING_ACKS, "coordinators snapshotted");
        CheckpointTrigger trigger = new CheckpointTrigger(checkpoint.checkpointId, checkpoint.timestampMs,
                checkpoint.kind, checkpoint.directory,
                checkpoint.kind == CheckpointKind.CHECKPOINT && progress.checkpointsFull());
        tasks.triggerCheckpoint(checkpoint.plan.toTrigger(), trigger);
        if (checkpoint.allAcknowledged()) {
            progress.allAcknowledged(checkpoint);
        }
    }

    /** The checkpoint's timeout passed: unless it ended or is finalizing (rule 4), it is aborted. */
    private void expire(PendingCheckpoint checkpoint) {
        if (checkpoint.isEnded() || checkpoint.state() == PendingCheckpoint.State.FINALIZING) {
            return;
        }
        progress.abort(checkpoint, new CheckpointFailure(checkpoint.checkpointId, CheckpointFailureReason.EXPIRED,
                "not complete within " + config.timeoutMs() + " ms; " + checkpoint.pendingAcknowledgements()
                        + " task(s) did not acknowledge", null));
    }
}
