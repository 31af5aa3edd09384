package io.duraflow.checkpoint;

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
 * Issue 10's {@code tolerable-failed-checkpoints-timeout} hooks in at {@link #onFailure} (soft
 * failures included) and {@link #onSuccess}, see {@link #lastSuccessMs()}.
 */
public final class CheckpointFailureManager {
    private final int tolerableFailures;
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
        if (tolerableFailures < 0) {
            throw new IllegalArgumentException("tolerable failed checkpoints " + tolerableFailures);
        }
        this.tolerableFailures = tolerableFailures;
        this.lastSuccessMs = startMs;
    }

    public Verdict onFailure(CheckpointFailure failure) {
        Objects.requireNonNull(failure, "failure");
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
        continuousFailures = 0;
        countedIds.removeIf(id -> id <= lastCompletedId);
    }

    public int continuousFailures() {
        return continuousFailures;
    }

    /** When the last checkpoint completed (or the job started): where issue 10's timeout counts from. */
    public long lastSuccessMs() {
        return lastSuccessMs;
    }
}
