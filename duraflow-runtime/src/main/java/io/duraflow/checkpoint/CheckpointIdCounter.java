package io.duraflow.checkpoint;

/**
 * Hands out checkpoint ids: 1, 2, 3, ... per job, never the same id twice and never going back,
 * also across JobManager failovers (with high availability the counter lives in ZooKeeper).
 * Calls may block on I/O: the coordinator calls them on its I/O executor.
 */
public interface CheckpointIdCounter {
    /** The id to use now; the next call returns a larger one. */
    long getAndIncrement() throws Exception;

    /** The id the next {@link #getAndIncrement} returns. */
    long get() throws Exception;

    /**
     * Makes the next id at least {@code nextId} (after a restore: the restored checkpoint's id + 1);
     * never lowers it, so a stale restore cannot make ids repeat.
     */
    void continueFrom(long nextId) throws Exception;

    /** Deletes the counter's durable state: the job reached a terminal state and never runs again. */
    void discard() throws Exception;
}
