package io.duraflow.examples.cdc;

/**
 * When a {@link SnapshotChangelogReader} that declined a checkpoint waits at the end of a chunk, so
 * that the coordinator's retry finds it between chunks. Pure: the reader passes the time in. Its
 * rules: see docs/design/checkpoint-rejection.md#chunkboundaryhold.
 */
final class ChunkBoundaryHold {
    static final long SLACK_MS = 5;
    static final long LATE_MS = 100;
    /** The default {@code execution.checkpointing.soft-decline-retry-delay}. */
    static final long ASSUMED_RETRY_GAP_MS = 200;
    /** How long after a trigger it took part in a reader expects to hear that the checkpoint completed. */
    static final long COMPLETION_GRACE_MS = 150;

    private final long maxHoldMs;
    private long lastTriggerMs = -1;
    private boolean declinedLast;
    /** Whether a hold ran out since the last trigger (rule 5). */
    private boolean holdExpired;
    private boolean completedSinceTrigger;
    /** -1: not learned yet. */
    private long retryGapMs = -1;
    private long lastChunkMs;

    /** @param maxHoldMs longest wait at one boundary; 0 never waits */
    ChunkBoundaryHold(long maxHoldMs) {
        if (maxHoldMs < 0) {
            throw new IllegalArgumentException("max hold must not be negative, got " + maxHoldMs);
        }
        this.maxHoldMs = maxHoldMs;
    }

    /** A checkpoint trigger reached the reader at {@code nowMs}; it {@code declined} it or took part. */
    void onTrigger(long nowMs, boolean declined) {
        if (lastTriggerMs >= 0 && !completedSinceTrigger && nowMs >= lastTriggerMs) {
            retryGapMs = nowMs - lastTriggerMs;
        }
        lastTriggerMs = nowMs;
        declinedLast = declined;
        completedSinceTrigger = false;
        holdExpired = false;
    }

    void onCheckpointComplete() {
        completedSinceTrigger = true;
        declinedLast = false;
    }

    /** A chunk took {@code chunkMs} from its opening to its last row. */
    void onChunkEnded(long chunkMs) {
        lastChunkMs = Math.max(0, chunkMs);
    }

    /** At a boundary at {@code nowMs}: wait until the returned time; {@code <= nowMs}: open the next chunk now. */
    long holdUntil(long nowMs) {
        boolean awaitingRetry = lastTriggerMs >= 0 && !completedSinceTrigger && !holdExpired
                && (declinedLast || nowMs - lastTriggerMs > COMPLETION_GRACE_MS);
        if (!awaitingRetry || maxHoldMs == 0) {
            return nowMs;
        }
        long expected = lastTriggerMs + (retryGapMs < 0 ? ASSUMED_RETRY_GAP_MS : retryGapMs);
        if (nowMs + lastChunkMs + SLACK_MS < expected) {
            return nowMs;
        }
        return Math.min(nowMs + maxHoldMs, Math.max(expected, nowMs) + LATE_MS);
    }

    /** A wait ran out without a trigger (rule 5). */
    void onHoldExpired() {
        holdExpired = true;
    }

    /** The learned time from a declined trigger to the next; -1 if none yet. */
    long retryGapMs() {
        return retryGapMs;
    }
}
