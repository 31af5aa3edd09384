package io.duraflow.checkpoint;

import io.duraflow.mailbox.Mailbox;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

/**
 * When the {@link CheckpointCoordinator}'s next periodic checkpoint comes (its rule 1): it only
 * decides the time and calls {@code trigger}. On the coordinator's main thread. Its rules: see
 * docs/design/checkpoint-coordination.md#periodictriggerscheduler.
 */
final class PeriodicTriggerScheduler {
    private final CheckpointCoordinatorConfig config;
    private final Mailbox mainThread;
    private final LongSupplier clockMs;
    private final IntSupplier inProgress;
    private final Runnable trigger;
    private final SoftDeclineBackoff backoff;

    private boolean periodic;
    private long lastTriggerMs;
    // Far enough in the past that the min-pause never holds back the first trigger, yet no overflow.
    private long lastCompletionMs = Long.MIN_VALUE / 2;
    /** When a retry after a soft decline may come; MAX_VALUE when none is due. */
    private long softRetryMs = Long.MAX_VALUE;
    private Mailbox.Cancellable triggerTimer;

    /**
     * @param inProgress how many checkpoints are in progress: pending plus those drawing their id
     * @param trigger starts a periodic checkpoint; it must call {@link #onTriggered}
     */
    PeriodicTriggerScheduler(CheckpointCoordinatorConfig config, Mailbox mainThread, LongSupplier clockMs,
            IntSupplier inProgress, Runnable trigger) {
        this.config = config;
        this.mainThread = mainThread;
        this.clockMs = clockMs;
        this.inProgress = inProgress;
        this.trigger = trigger;
        this.backoff = new SoftDeclineBackoff(config.softDeclineRetryMs(), config.intervalMs());
        this.lastTriggerMs = clockMs.getAsLong();
    }

    /** Starts periodic triggers; the first comes one interval from now, or as soon as it may if {@code firstNow}. */
    void start(boolean firstNow) {
        periodic = true;
        backoff.reset();
        lastTriggerMs = clockMs.getAsLong() - (firstNow ? config.intervalMs() : 0);
        reschedule();
    }

    /** No more periodic triggers until {@link #start}. */
    void stop() {
        periodic = false;
        cancelTriggerTimer();
    }

    /** A checkpoint or savepoint was triggered (periodic or by hand) at {@code timestampMs}. */
    void onTriggered(long timestampMs) {
        lastTriggerMs = timestampMs;
        softRetryMs = Long.MAX_VALUE;
    }

    /** A checkpoint was declined softly at {@code nowMs}: retry sooner (rule 5), if configured. */
    void onSoftDecline(long nowMs) {
        long delayMs = backoff.nextDelayMs();
        if (delayMs >= 0) {
            softRetryMs = nowMs + delayMs;
        }
    }

    /** A checkpoint or savepoint completed at {@code nowMs}. */
    void onCompleted(long nowMs) {
        lastCompletionMs = nowMs;
        backoff.reset();
    }

    /**
     * Schedules the next periodic trigger when one may come; while the in-progress checkpoints
     * block it, nothing is scheduled, and the end of one calls this again.
     */
    void reschedule() {
        cancelTriggerTimer();
        if (!periodic) {
            return;
        }
        int running = inProgress.getAsInt();
        if (running >= config.maxConcurrent() || (config.minPauseMs() > 0 && running > 0)) {
            return;
        }
        long delay = Math.max(0, earliestPeriodicTriggerMs() - clockMs.getAsLong());
        triggerTimer = mainThread.schedule(this::onTriggerTimer, delay);
    }

    private void onTriggerTimer() {
        triggerTimer = null;
        if (!periodic) {
            return;
        }
        if (!mayTriggerPeriodic()) {
            reschedule();
            return;
        }
        trigger.run();
    }

    private boolean mayTriggerPeriodic() {
        int running = inProgress.getAsInt();
        return running < config.maxConcurrent() && (config.minPauseMs() == 0 || running == 0)
                && clockMs.getAsLong() >= earliestPeriodicTriggerMs();
    }

    private long earliestPeriodicTriggerMs() {
        return Math.max(Math.min(lastTriggerMs + config.intervalMs(), softRetryMs),
                lastCompletionMs + config.minPauseMs());
    }

    private void cancelTriggerTimer() {
        if (triggerTimer != null) {
            triggerTimer.cancel();
            triggerTimer = null;
        }
    }
}
