package io.duraflow.checkpoint;

import io.duraflow.state.TaskStateSnapshot;
import java.util.Optional;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the tasks answer to the {@link CheckpointCoordinator}'s checkpoints: acknowledgements,
 * declines and finishes, its rules 3 to 5 as far as they depend on the answer. An answer that
 * ends a checkpoint goes back to the coordinator ({@link CheckpointProgress}): the last
 * acknowledgement to be made durable, a decline, a finished task or a reused shared file that may
 * be gone to be aborted. An answer for a checkpoint that does not wait for it is discarded, its
 * files deleted when no checkpoint uses them ({@link CheckpointFileDisposal}).
 *
 * <p>Main thread only; the answers arrive there from the tasks' RPCs.
 */
final class CheckpointAcknowledgements {
    private static final Logger LOG = LoggerFactory.getLogger(CheckpointAcknowledgements.class);

    private final String jobId;
    private final LongSupplier clockMs;
    private final PendingCheckpoints pending;
    private final CheckpointFileDisposal disposal;
    private final CheckpointDeclines declines;
    private final CheckpointProgress progress;

    CheckpointAcknowledgements(String jobId, LongSupplier clockMs, PendingCheckpoints pending,
            CheckpointFileDisposal disposal, CheckpointDeclines declines, CheckpointProgress progress) {
        this.jobId = jobId;
        this.clockMs = clockMs;
        this.pending = pending;
        this.disposal = disposal;
        this.declines = declines;
        this.progress = progress;
    }

    /** A task's part of checkpoint {@code checkpointId} is durable (see {@link CheckpointCoordinator#acknowledge}). */
    void acknowledge(CheckpointTask task, long checkpointId, TaskStateSnapshot snapshot, CheckpointMetrics metrics) {
        SnapshotFiles snapshotFiles = SnapshotFiles.of(snapshot);
        PendingCheckpoint checkpoint = pending.get(checkpointId);
        if (checkpoint == null || checkpoint.state() != PendingCheckpoint.State.AWAITING_ACKS) {
            String state = checkpoint == null ? "not pending (aborted, expired, completed or unknown)"
                    : checkpoint.state().toString();
            if (checkpoint != null && checkpoint.state() == PendingCheckpoint.State.FINALIZING) {
                // Every expected task acknowledged already, so this is an unknown attempt's state.
                LOG.warn("Acknowledgement of checkpoint {} of job {} by {} while it finalizes: discarding its state",
                        checkpointId, jobId, task);
            } else {
                LOG.info("Acknowledgement of checkpoint {} of job {} by {}: checkpoint {}; discarding its state",
                        checkpointId, jobId, task, state);
            }
            disposal.discardUnreferenced(snapshotFiles);
            if (checkpoint == null) {
                disposal.discardDeadDirectory(checkpointId, pending.highestTriggeredId(), pending.liveCheckpointIds());
            }
            return;
        }
        switch (checkpoint.acknowledge(task, snapshot, snapshotFiles)) {
            case ACCEPTED -> {
                Optional<CheckpointFailure> missing = disposal.registerAcknowledged(checkpointId, task, snapshotFiles);
                if (missing.isPresent()) {
                    progress.abort(checkpoint, missing.get());
                    return;
                }
                LOG.debug("Checkpoint {} of job {}: acknowledged by {} ({} bytes, {}), {} to go", checkpointId, jobId,
                        task, snapshot.stateSize(), metrics, checkpoint.pendingAcknowledgements());
                if (checkpoint.allAcknowledged()) {
                    progress.allAcknowledged(checkpoint);
                }
            }
            case DUPLICATE -> LOG.warn("Duplicate acknowledgement of checkpoint {} of job {} by {}: ignored",
                    checkpointId, jobId, task);
            case UNKNOWN_TASK -> {
                LOG.warn("Acknowledgement of checkpoint {} of job {} by {}, which it does not wait for: discarding"
                        + " its state", checkpointId, jobId, task);
                disposal.discardUnreferenced(snapshotFiles);
            }
        }
    }

    /** A task finished: checkpoints that wait for it are aborted ({@link CheckpointCoordinator#taskFinished}). */
    void taskFinished(CheckpointTask task) {
        for (PendingCheckpoint checkpoint : pending.all()) {
            if (checkpoint.state() != PendingCheckpoint.State.FINALIZING && checkpoint.awaits(task)) {
                progress.abort(checkpoint, new CheckpointFailure(checkpoint.checkpointId,
                        CheckpointFailureReason.NOT_ALL_TASKS_RUNNING, "task " + task
                                + " finished before it took its part", task.toString()));
            }
        }
    }

    /** A task will not take its part of checkpoint {@code checkpointId} (see {@link CheckpointCoordinator#decline}). */
    void decline(CheckpointTask task, long checkpointId, CheckpointFailureReason reason, String message) {
        CheckpointFailure failure = new CheckpointFailure(checkpointId, reason, message, task.toString());
        PendingCheckpoint checkpoint = pending.get(checkpointId);
        if (checkpoint != null && checkpoint.state() != PendingCheckpoint.State.FINALIZING
                && checkpoint.plan.toAcknowledge().contains(task)) {
            declines.onDeclineAbort(checkpoint, failure);
            progress.abort(checkpoint, failure);
        } else if (!declines.onLateDecline(task, failure, clockMs.getAsLong())) {
            LOG.info("Decline of checkpoint {} of job {} by {} ({}: {}) ignored: the checkpoint is {}", checkpointId,
                    jobId, task, reason, message, checkpoint == null ? "not pending" : checkpoint.state()
                            + (checkpoint.plan.toAcknowledge().contains(task) ? "" : ", not waiting for the task"));
        }
    }
}
