package io.duraflow.checkpoint;

import java.util.Optional;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;

/**
 * Counts failed checkpoints toward {@code execution.checkpointing.tolerable-failed-checkpoints}
 * and decides when the job must fail over. Pure: the coordinator reports, this answers.
 *
 * <ol>
 *   <li>A failure counts only if its reason {@link CheckpointFailureReason#countsTowardTolerance()
 *       counts}: soft declines, job failovers and shutdowns never do.</li>
 *   <li>Each checkpoint id counts at most once, however many subtasks decline it or however
 *       often it is reported.</li>
 *   <li>A completed checkpoint resets the count, and failures of checkpoints older than it no
 *       longer count (they come late).</li>
 *   <li>When the count exceeds the tolerable number, {@link #onFailure} answers "fail over" once;
 *       the count restarts from zero so the restored job gets the full tolerance again.</li>
 * </ol>
 *
 * <p>The time limit ({@code execution.checkpointing.tolerable-failed-checkpoints-timeout}):
 * <ol start="5">
 *   <li>The window starts at the job's start, at every completed checkpoint, and, for a coordinator
 *       that restores a checkpoint before it completed or timed out anything (a new leader), at the
 *       completion of the restored checkpoint; soft declines do not move it.</li>
 *   <li>When no checkpoint completed within it, {@link #onTimeoutCheck} answers with the cause
 *       (the limit and the last failure, soft ones included) and starts a new window, so the
 *       restored job gets the whole limit again.</li>
 * </ol>
 */
public final class CheckpointFailureManager {
    private final int tolerableFailures;
    /** 0: no time limit. */
    private final long failureTimeoutMs;
    /** Whether this coordinator saw a completion or a timeout: a restore no longer moves the window. */
    private boolean windowMovedHere;
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
        lastSuccessMs = nowMs;
        windowMovedHere = true;
        lastFailure = null;
        continuousFailures = 0;
        countedIds.removeIf(id -> id <= lastCompletedId);
    }

    public int continuousFailures() {
        return continuousFailures;
    }

    /** When the last checkpoint completed (or the job started, or the restored one completed). */
    public long lastSuccessMs() {
        return lastSuccessMs;
    }

    /** When the time limit runs out, or {@link Long#MAX_VALUE} without a limit. */
    public long deadlineMs() {
        return failureTimeoutMs == 0 ? Long.MAX_VALUE : lastSuccessMs + failureTimeoutMs;
    }

    /** A new leader restored a checkpoint that completed at {@code completedMs}: its window counts from there. */
    public void restoredFrom(long completedMs) {
        if (!windowMovedHere) {
            lastSuccessMs = completedMs;
        }
    }

    /**
     * The time limit's timer fired at {@code nowMs}: the cause to fail over with, if no checkpoint
     * completed within the limit (then a new window starts now), else empty.
     */
    public Optional<String> onTimeoutCheck(long nowMs) {
        if (nowMs < deadlineMs()) {
            return Optional.empty();
        }
        String cause = "no checkpoint completed within " + failureTimeoutMs + " ms"
                + " (execution.checkpointing.tolerable-failed-checkpoints-timeout)"
                + (lastFailure == null ? "; none was declined or failed in that time"
                        : "; the last failure: " + lastFailure.describe());
        lastSuccessMs = nowMs;
        windowMovedHere = true;
        lastFailure = null;
        continuousFailures = 0;
        countedIds.clear();
        return Optional.of(cause);
    }
}
