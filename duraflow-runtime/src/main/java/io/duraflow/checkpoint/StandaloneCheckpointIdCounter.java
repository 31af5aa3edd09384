package io.duraflow.checkpoint;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The counter without high availability: in memory. A JobManager restart restores the latest
 * completed checkpoint from the store, and {@link #continueFrom} moves the counter past it.
 */
public final class StandaloneCheckpointIdCounter implements CheckpointIdCounter {
    private final AtomicLong next = new AtomicLong(1);

    @Override
    public long getAndIncrement() {
        return next.getAndIncrement();
    }

    @Override
    public long get() {
        return next.get();
    }

    @Override
    public void continueFrom(long nextId) {
        next.accumulateAndGet(nextId, Math::max);
    }

    @Override
    public void discard() {
    }
}
