package io.duraflow.checkpoint;

import io.duraflow.util.MainThreadExecutor;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * The timer of {@code execution.checkpointing.tolerable-failed-checkpoints-timeout}: set at the
 * {@link CheckpointFailureManager}'s deadline while periodic checkpoints run, moved on every
 * completion and restore, and when it fires without a completion in time, the job fails over
 * with the manager's cause. Main thread only.
 */
final class FailureTimeoutTimer {
    private final MainThreadExecutor mainThread;
    private final LongSupplier clockMs;
    private final CheckpointFailureManager manager;
    private final CheckpointFailureHandler failureHandler;
    private boolean active;
    private MainThreadExecutor.Cancellable timer;

    FailureTimeoutTimer(MainThreadExecutor mainThread, LongSupplier clockMs, CheckpointFailureManager manager,
            CheckpointFailureHandler failureHandler) {
        this.mainThread = mainThread;
        this.clockMs = clockMs;
        this.manager = manager;
        this.failureHandler = failureHandler;
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
    void rearm() {
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
