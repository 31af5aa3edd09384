package io.duraflow.checkpoint;

import io.duraflow.mailbox.Mailbox;
import java.util.Optional;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the coordinator's failed checkpoints cost the job: the {@link CheckpointFailureManager}
 * counts them, and this fails the job over when it says so, and runs the timer of {@code
 * execution.checkpointing.tolerable-failed-checkpoints-timeout}: set at the manager's deadline
 * while the tasks run (periodic checkpoints on), moved on every completion and restore. When the
 * deadline passed and a checkpoint failed since the tasks began to run (the manager's rule 8), the
 * job fails over with the manager's cause, and the new window's start is recorded in the completed
 * store (rule 7; if that write fails, a later leader counts from an earlier start: sooner, never
 * later). A deadline that passed while no checkpoint failed yet sets no timer: the next failure
 * checks it. Main thread only.
 */
final class CheckpointFailures {
    private static final Logger LOG = LoggerFactory.getLogger(CheckpointFailures.class);

    private final Mailbox mainThread;
    private final LongSupplier clockMs;
    private final CheckpointFailureManager manager;
    private final CheckpointFailureHandler failureHandler;
    private final MainThreadIo io;
    private final CompletedCheckpointStore store;
    private final int tolerableFailures;
    private boolean active;
    private Mailbox.Cancellable timer;

    /** @param store records the start of a new window after a failover by the time limit, on {@code io} */
    CheckpointFailures(CheckpointCoordinatorConfig config, Mailbox mainThread, LongSupplier clockMs,
            CheckpointFailureHandler failureHandler, MainThreadIo io, CompletedCheckpointStore store) {
        this.mainThread = mainThread;
        this.clockMs = clockMs;
        this.manager = new CheckpointFailureManager(config.tolerableFailures(), config.failureTimeoutMs(),
                clockMs.getAsLong());
        this.failureHandler = failureHandler;
        this.io = io;
        this.store = store;
        this.tolerableFailures = config.tolerableFailures();
    }

    CheckpointFailureManager manager() {
        return manager;
    }

    /** A checkpoint (not a savepoint: the user retries those) failed; fails the job over when too many did. */
    void onAborted(CheckpointFailure failure) {
        if (manager.onFailure(failure) == CheckpointFailureManager.Verdict.FAIL_OVER) {
            failureHandler.failJob("more than " + tolerableFailures + " checkpoint(s) in a row failed"
                    + " (execution.checkpointing.tolerable-failed-checkpoints); the last: " + failure.describe());
        } else if (active) {
            checkDeadline();
        }
    }

    void onCompleted(long checkpointId, long nowMs) {
        manager.onSuccess(checkpointId, nowMs);
        rearm();
    }

    /** A restore found the job's window starting at {@code windowStartMs} (the manager's rule 7). */
    void restoredWindow(long windowStartMs) {
        manager.restoredWindow(windowStartMs);
        rearm();
    }

    /** Every task runs (the job started or restarted, or a new leader adopted them): the timer runs. */
    void start() {
        active = true;
        manager.onTasksRunning();
        rearm();
    }

    void stop() {
        active = false;
        cancel();
    }

    /** The deadline may have moved (a completion, a restore): set the timer for it again, if it is ahead. */
    private void rearm() {
        cancel();
        long deadline = manager.deadlineMs();
        long nowMs = clockMs.getAsLong();
        if (active && deadline != Long.MAX_VALUE && deadline > nowMs) {
            timer = mainThread.schedule(this::fire, deadline - nowMs);
        }
    }

    private void fire() {
        timer = null;
        if (active && !checkDeadline()) {
            rearm();
        }
    }

    /** Fails the job over if the manager says the time is up; whether it did. */
    private boolean checkDeadline() {
        Optional<String> cause = manager.onTimeoutCheck(clockMs.getAsLong());
        if (cause.isEmpty()) {
            return false;
        }
        long windowStartMs = manager.lastSuccessMs();
        io.run(() -> {
            store.recordFailureWindowRestart(windowStartMs);
            return null;
        }).exceptionally(error -> {
            LOG.warn("Cannot record the start of the new checkpoint failure window: {}", MainThreadIo.describe(error));
            return null;
        });
        rearm();
        failureHandler.failJob(cause.get());
        return true;
    }

    private void cancel() {
        if (timer != null) {
            timer.cancel();
            timer = null;
        }
    }
}
