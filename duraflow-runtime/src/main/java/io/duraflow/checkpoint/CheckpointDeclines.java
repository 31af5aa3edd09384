package io.duraflow.checkpoint;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The declines that come after the first one of a checkpoint, so that a soft decline never hides a
 * hard one. On the coordinator's main thread. Its rules: see
 * docs/design/checkpoint-rejection.md#checkpointdeclines.
 */
final class CheckpointDeclines {
    private static final Logger LOG = LoggerFactory.getLogger(CheckpointDeclines.class);

    private final String jobId;
    private final long timeoutMs;
    private final CheckpointHistory history;
    private final CheckpointFailures failures;
    private final Map<Long, Declined> recent = new LinkedHashMap<>();

    /** A checkpoint aborted by a decline: who may still decline it, until when, and whether it counted. */
    private static final class Declined {
        final long expiresMs;
        final Set<CheckpointTask> participants;
        final Set<String> declinedBy = new java.util.HashSet<>();
        /** Whether its failure counts already, or never may (a savepoint); then later declines are only recorded. */
        boolean countedOrExempt;

        Declined(long expiresMs, Set<CheckpointTask> participants, boolean countedOrExempt) {
            this.expiresMs = expiresMs;
            this.participants = participants;
            this.countedOrExempt = countedOrExempt;
        }
    }

    CheckpointDeclines(String jobId, long timeoutMs, CheckpointHistory history, CheckpointFailures failures) {
        this.jobId = jobId;
        this.timeoutMs = timeoutMs;
        this.history = history;
        this.failures = failures;
    }

    /** Rule 1: {@code checkpoint} is aborted by {@code failure}, a decline of one of its tasks. */
    void onDeclineAbort(PendingCheckpoint checkpoint, CheckpointFailure failure) {
        Declined declined = new Declined(checkpoint.timestampMs + timeoutMs, checkpoint.plan.toAcknowledge(),
                checkpoint.kind != CheckpointKind.CHECKPOINT || failure.reason().countsTowardTolerance());
        declined.declinedBy.add(failure.task());
        recent.put(checkpoint.checkpointId, declined);
        Iterator<Long> oldest = recent.keySet().iterator();
        while (recent.size() > CheckpointHistory.SIZE) {
            oldest.next();
            oldest.remove();
        }
    }

    /**
     * Rules 2 and 3: a decline of a checkpoint that is no longer pending.
     *
     * @return whether it was taken into account; else the caller ignores it
     */
    boolean onLateDecline(CheckpointTask task, CheckpointFailure failure, long nowMs) {
        Declined declined = recent.get(failure.checkpointId());
        if (declined == null || nowMs > declined.expiresMs || !declined.participants.contains(task)
                || !declined.declinedBy.add(failure.task())) {
            return false;
        }
        boolean upgrade = !declined.countedOrExempt && failure.reason().countsTowardTolerance();
        history.addDecline(failure, upgrade);
        if (upgrade) {
            declined.countedOrExempt = true;
            LOG.warn("Job {}: {}; it was declined softly before, it is a hard failure now", jobId, failure.describe());
            failures.onAborted(failure);
        } else {
            LOG.info("Job {}: {} (after its abort)", jobId, failure.describe());
        }
        return true;
    }

    /** Rule 1: checkpoint {@code checkpointId} completed; declines of older ones no longer count. */
    void onCompleted(long checkpointId) {
        recent.keySet().removeIf(id -> id < checkpointId);
    }

    /** Rule 1: the job restores (or the coordinator shuts down); no earlier checkpoint's decline matters. */
    void clear() {
        recent.clear();
    }
}
