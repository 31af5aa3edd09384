package io.duraflow.taskmanager;

import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link Mailbox} on one thread of its own, with the wall clock. A mail that throws is a bug in
 * the executor's own state (handlers that concern one task catch and fail that task themselves):
 * it goes to {@code fatalError}, which the TaskManager process turns into an exit, never only a
 * log line.
 */
public final class ThreadMailbox implements Mailbox, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ThreadMailbox.class);

    private final ScheduledExecutorService executor;
    private final Consumer<Throwable> fatalError;
    /** Set once by the thread factory, before the first mail; read by the guard on any thread. */
    private volatile Thread thread;

    public ThreadMailbox(String threadName, Consumer<Throwable> fatalError) {
        this.fatalError = fatalError;
        this.executor = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, threadName);
            t.setDaemon(true);
            thread = t;
            return t;
        });
    }

    @Override
    public void execute(Runnable mail) {
        try {
            executor.execute(guarded(mail));
        } catch (RejectedExecutionException e) {
            LOG.debug("Mailbox closed; dropping a mail");
        }
    }

    @Override
    public Cancellable schedule(Runnable mail, long delayMs) {
        try {
            ScheduledFuture<?> future = executor.schedule(guarded(mail), delayMs, TimeUnit.MILLISECONDS);
            return () -> future.cancel(false);
        } catch (RejectedExecutionException e) {
            return () -> {};
        }
    }

    @Override
    public long now() {
        return System.currentTimeMillis();
    }

    @Override
    public void assertRunningInMailbox() {
        if (Thread.currentThread() != thread) {
            throw new IllegalStateException("must run in the TaskExecutor's mailbox, not on "
                    + Thread.currentThread().getName());
        }
    }

    private Runnable guarded(Runnable mail) {
        return () -> {
            try {
                mail.run();
            } catch (Throwable t) {
                fatalError.accept(t);
            }
        };
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
