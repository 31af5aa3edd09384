package io.duraflow.checkpoint;

import java.util.Optional;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;

/**
 * Counts failed checkpoints toward {@code execution.checkpointing.tolerable-failed-checkpoints} and
 * the time limit, and decides when the job must fail over. Pure: the coordinator reports, this
 * answers. Its eight rules, numbered as tests and code refer to them: see
 * docs/design/checkpoint-rejection.md#checkpointfailuremanager.
 */
public final class CheckpointFailureManager {
    private final int tolerableFailures;
    /** 0: no time limit. */
    private final long failureTimeoutMs;
    /** Rule 7: whether the window was set by a restore, a completion or a timeout of this coordinator. */
    private boolean windowKnown;
    /** Rule 8: whether a checkpoint failed since the tasks last began to run. */
    private boolean failedSinceRunning;
    private CheckpointFailure lastFailure;
    private final Set<Long> countedIds = new HashSet<>();
    private int continuousFailures;
    private long lastCompletedId;
    private long lastSuccessMs;

    /** What the job must do after a failure. */
    public enum Verdict {
        CONTINUE,
        FAIL_OVER
    }

    public CheckpointFailureManager(int tolerableFailures, long startMs) {
        this(tolerableFailures, 0, startMs);
    }

    /** @param failureTimeoutMs longest time without a completed checkpoint; 0 = no limit */
    public CheckpointFailureManager(int tolerableFailures, long failureTimeoutMs, long startMs) {
        if (tolerableFailures < 0 || failureTimeoutMs < 0) {
            throw new IllegalArgumentException("tolerable failed checkpoints " + tolerableFailures + " within "
                    + failureTimeoutMs + " ms");
        }
        this.tolerableFailures = tolerableFailures;
        this.failureTimeoutMs = failureTimeoutMs;
        this.lastSuccessMs = startMs;
    }

    public Verdict onFailure(CheckpointFailure failure) {
        Objects.requireNonNull(failure, "failure");
        if (failure.reason() != CheckpointFailureReason.COORDINATOR_SHUTDOWN
                && failure.reason() != CheckpointFailureReason.SUBSUMED) {
            lastFailure = failure;
        }
        if (failure.reason().countsTowardTolerance()
                || failure.reason() == CheckpointFailureReason.SNAPSHOT_UNAVAILABLE_SOFT) {
            failedSinceRunning = true;
        }
        if (!failure.reason().countsTowardTolerance() || failure.checkpointId() <= lastCompletedId
                || !countedIds.add(failure.checkpointId())) {
            return Verdict.CONTINUE;
        }
        continuousFailures++;
        if (continuousFailures > tolerableFailures) {
            continuousFailures = 0;
            countedIds.clear();
            return Verdict.FAIL_OVER;
        }
        return Verdict.CONTINUE;
    }

    public void onSuccess(long checkpointId, long nowMs) {
        lastCompletedId = Math.max(lastCompletedId, checkpointId);
        lastSuccessMs = Math.max(lastSuccessMs, nowMs);
        windowKnown = true;
        lastFailure = null;
        continuousFailures = 0;
        countedIds.removeIf(id -> id <= lastCompletedId);
    }

    public int continuousFailures() {
        return continuousFailures;
    }

    /** When the window started (rules 5 and 7): the last completion, the job's start or the last timeout. */
    public long lastSuccessMs() {
        return lastSuccessMs;
    }

    /** When the time limit runs out, or {@link Long#MAX_VALUE} without a limit. */
    public long deadlineMs() {
        return failureTimeoutMs == 0 ? Long.MAX_VALUE : lastSuccessMs + failureTimeoutMs;
    }

    /**
     * Rule 7: a restore found the job's window starting at {@code windowStartMs} (the later of the
     * recorded start and the latest completion). The first restore sets it; later ones only move
     * it forward.
     */
    public void restoredWindow(long windowStartMs) {
        lastSuccessMs = windowKnown ? Math.max(lastSuccessMs, windowStartMs) : windowStartMs;
        windowKnown = true;
    }

    /** Rule 8: every task of the job runs (again); the window fails it over only after a failure from now on. */
    public void onTasksRunning() {
        failedSinceRunning = false;
    }

    /**
     * Checks the time limit at {@code nowMs}: the cause to fail over with, if no checkpoint
     * completed within the limit and one failed since the tasks last began to run (rule 8; then a
     * new window starts now), else empty.
     */
    public Optional<String> onTimeoutCheck(long nowMs) {
        if (nowMs < deadlineMs() || !failedSinceRunning) {
            return Optional.empty();
        }
        String cause = "no checkpoint completed within " + failureTimeoutMs + " ms"
                + " (execution.checkpointing.tolerable-failed-checkpoints-timeout)"
                + (lastFailure == null ? "; none was declined or failed in that time"
                        : "; the last failure: " + lastFailure.describe());
        lastSuccessMs = nowMs;
        windowKnown = true;
        lastFailure = null;
        continuousFailures = 0;
        countedIds.clear();
        return Optional.of(cause);
    }
}
