package io.duraflow.checkpoint;

import io.duraflow.util.MainThreadExecutor;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * What the coordinator's failed checkpoints cost the job: the {@link CheckpointFailureManager}
 * counts them, and this fails the job over when it says so, and runs the timer of {@code
 * execution.checkpointing.tolerable-failed-checkpoints-timeout}: set at the manager's deadline
 * while periodic checkpoints run, moved on every completion and restore; when it fires without a
 * completion in time, the job fails over with the manager's cause. Main thread only.
 */
final class CheckpointFailures {
    private final MainThreadExecutor mainThread;
    private final LongSupplier clockMs;
    private final CheckpointFailureManager manager;
    private final CheckpointFailureHandler failureHandler;
    private final int tolerableFailures;
    private boolean active;
    private MainThreadExecutor.Cancellable timer;

    CheckpointFailures(CheckpointCoordinatorConfig config, MainThreadExecutor mainThread, LongSupplier clockMs,
            CheckpointFailureHandler failureHandler) {
        this.mainThread = mainThread;
        this.clockMs = clockMs;
        this.manager = new CheckpointFailureManager(config.tolerableFailures(), config.failureTimeoutMs(),
                clockMs.getAsLong());
        this.failureHandler = failureHandler;
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
        }
    }

    void onCompleted(long checkpointId, long nowMs) {
        manager.onSuccess(checkpointId, nowMs);
        rearm();
    }

    /** A restore found a checkpoint that completed at {@code completedMs} (see the manager's rule 5). */
    void restoredFrom(long completedMs) {
        manager.restoredFrom(completedMs);
        rearm();
    }

    void start() {
        active = true;
        rearm();
    }

    void stop() {
        active = false;
        cancel();
    }

    /** The deadline may have moved (a completion, a restore): set the timer for it again. */
    private void rearm() {
        cancel();
        long deadline = manager.deadlineMs();
        if (active && deadline != Long.MAX_VALUE) {
            timer = mainThread.schedule(this::fire, Math.max(0, deadline - clockMs.getAsLong()));
        }
    }

    private void fire() {
        timer = null;
        if (!active) {
            return;
        }
        Optional<String> cause = manager.onTimeoutCheck(clockMs.getAsLong());
        rearm();
        cause.ifPresent(failureHandler::failJob);
    }

    private void cancel() {
        if (timer != null) {
            timer.cancel();
            timer = null;
        }
    }
}
