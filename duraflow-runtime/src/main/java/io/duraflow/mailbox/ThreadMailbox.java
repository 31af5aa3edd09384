package io.duraflow.mailbox;

import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link Mailbox} on one daemon thread of its own, with the wall clock: the JobManager's main
 * thread ({@code jobmanager-main}) and each TaskManager's executor mailbox.
 *
 * <p>A mail that throws is a bug in the owner's own state (handlers that concern one task or one
 * job catch and fail it themselves): it goes to the {@linkplain #onUncaughtException handler},
 * which the owner turns into an action (the JobManager gives up its leadership, the TaskManager
 * process exits), never only a log line. Once closed, late mails (an RPC answer, a timer of a
 * component going away) are dropped: nothing is left to act on their state.
 */
public final class ThreadMailbox implements Mailbox, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ThreadMailbox.class);

    private final String threadName;
    private final ScheduledExecutorService executor;
    /** Set once by the thread factory, before the first mail; read by the guard on any thread. */
    private volatile Thread thread;
    /** Set by the owner before or after start; read on the mailbox thread when a mail throws. */
    private volatile Consumer<Throwable> uncaught = t -> { };

    public ThreadMailbox(String threadName) {
        this.threadName = threadName;
        this.executor = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, threadName);
            t.setDaemon(true);
            thread = t;
            return t;
        });
    }

    public ThreadMailbox(String threadName, Consumer<Throwable> fatalError) {
        this(threadName);
        onUncaughtException(fatalError);
    }

    @Override
    public void execute(Runnable mail) {
        try {
            executor.execute(guarded(mail));
        } catch (RejectedExecutionException e) {
            LOG.debug("Mailbox {} is closed; dropped a mail", threadName);
        }
    }

    @Override
    public Cancellable schedule(Runnable mail, long delayMs) {
        try {
            ScheduledFuture<?> future = executor.schedule(guarded(mail), delayMs, TimeUnit.MILLISECONDS);
            return () -> future.cancel(false);
        } catch (RejectedExecutionException e) {
            LOG.debug("Mailbox {} is closed; dropped a timer", threadName);
            return () -> { };
        }
    }

    /** Runs {@code mail} every {@code periodMs}, measured from the end of one run to the next. */
    public Cancellable scheduleAtFixedRate(Runnable mail, long periodMs) {
        try {
            ScheduledFuture<?> future = executor.scheduleWithFixedDelay(guarded(mail), periodMs, periodMs,
                    TimeUnit.MILLISECONDS);
            return () -> future.cancel(false);
        } catch (RejectedExecutionException e) {
            LOG.debug("Mailbox {} is closed; dropped a periodic mail", threadName);
            return () -> { };
        }
    }

    /**
     * Runs a call in the mailbox and completes the future with its result; once closed, the
     * future fails with an {@link IllegalStateException} that says so.
     */
    public <T> CompletableFuture<T> call(Callable<T> call) {
        CompletableFuture<T> result = new CompletableFuture<>();
        try {
            executor.execute(() -> {
                try {
                    result.complete(call.call());
                } catch (Throwable t) {
                    result.completeExceptionally(t);
                }
            });
        } catch (RejectedExecutionException e) {
            result.completeExceptionally(new IllegalStateException("the " + threadName + " mailbox is closed: its process"
                    + " is shutting down"));
        }
        return result;
    }

    @Override
    public long now() {
        return System.currentTimeMillis();
    }

    @Override
    public void assertRunningInMailbox() {
        if (Thread.currentThread() != thread) {
            throw new IllegalStateException("must run in the " + threadName + " mailbox, not on "
                    + Thread.currentThread().getName());
        }
    }

    /** Sets what happens when a mail throws; see the class comment. */
    public void onUncaughtException(Consumer<Throwable> handler) {
        this.uncaught = handler;
    }

    private Runnable guarded(Runnable mail) {
        return () -> {
            try {
                mail.run();
            } catch (Throwable t) {
                LOG.error("Unhandled error in the {} mailbox", threadName, t);
                try {
                    uncaught.accept(t);
                } catch (Throwable again) {
                    LOG.error("Handling an unhandled error failed", again);
                }
            }
        };
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
