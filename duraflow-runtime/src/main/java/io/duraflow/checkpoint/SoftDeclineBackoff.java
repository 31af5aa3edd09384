package io.duraflow.checkpoint;

/**
 * How soon a periodic checkpoint follows a soft decline ({@link PeriodicTriggerScheduler} rule 5).
 * The first retry comes after {@code soft-decline-retry-delay}, so a checkpoint follows soon after
 * a source is ready again; while declines go on, each delay doubles, up to one checkpoint interval
 * (from there the interval decides), so a chunk that stays open is not asked five times a second.
 * A completed checkpoint or a new start of periodic checkpoints begins again with the first delay.
 * Main thread only.
 */
final class SoftDeclineBackoff {
    private final long firstDelayMs;
    private final long maxDelayMs;
    /** The delay the next soft decline allows: the first one, doubled with every decline since the last reset. */
    private long nextDelayMs;

    /** @param firstDelayMs 0: no early retry at all */
    SoftDeclineBackoff(long firstDelayMs, long maxDelayMs) {
        this.firstDelayMs = firstDelayMs;
        this.maxDelayMs = Math.max(firstDelayMs, maxDelayMs);
        this.nextDelayMs = firstDelayMs;
    }

    /** A soft decline: the delay until the retry it allows, or -1 without early retries. */
    long nextDelayMs() {
        if (firstDelayMs == 0) {
            return -1;
        }
        long delay = nextDelayMs;
        nextDelayMs = delay > maxDelayMs / 2 ? maxDelayMs : delay * 2;
        return delay;
    }

    /** A checkpoint completed, or periodic checkpoints start again: the next retry is quick again. */
    void reset() {
        nextDelayMs = firstDelayMs;
    }
}
