package io.duraflow.util;

import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs tasks one at a time, in the order they were given, on a shared executor: what a job's
 * checkpoint coordinator needs for its I/O (a restore must read the store only after a
 * finalization that began earlier), without a thread of its own per job.
 */
public final class SequentialExecutor implements Executor {
    private static final Logger LOG = LoggerFactory.getLogger(SequentialExecutor.class);

    private final Executor delegate;
    private final Queue<Runnable> queue = new ArrayDeque<>();
    /** Whether a drain is queued on or running in the delegate; guarded by this. */
    private boolean draining;

    public SequentialExecutor(Executor delegate) {
        this.delegate = delegate;
    }

    @Override
    public void execute(Runnable task) {
        synchronized (this) {
            queue.add(task);
            if (draining) {
                return;
            }
            draining = true;
        }
        delegate.execute(this::drain);
    }

    private void drain() {
        while (true) {
            Runnable next;
            synchronized (this) {
                next = queue.poll();
                if (next == null) {
                    draining = false;
                    return;
                }
            }
            try {
                next.run();
            } catch (RuntimeException e) {
                // The coordinator's tasks report their own failures; this only keeps the queue going.
                LOG.error("A sequential I/O task failed", e);
            }
        }
    }
}
