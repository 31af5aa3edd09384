package io.duraflow.util;

import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JobManager's single main thread. The dispatcher, the resource manager and every job
 * master keep their state here; other threads (gRPC handlers, RPC callbacks) only enqueue.
 */
public final class MainThread implements MainThreadExecutor, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(MainThread.class);

    private final ScheduledExecutorService executor;
    private volatile Thread thread;
    /**
     * Told about an exception that escaped an action: the owner's state may be inconsistent, so
     * it must act (the JobManager gives up its leadership), not only log.
     */
    private volatile java.util.function.Consumer<Throwable> uncaught = t -> { };

    public MainThread() {
        this.executor = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "jobmanager-main");
            t.setDaemon(true);
            thread = t;
            return t;
        });
    }

    /**
     * Enqueues an action. Once the JobManager closed, late callbacks (an RPC answer, a timer of
     * a component that is going away) are dropped: nothing is left to act on their state.
     */
    @Override
    public void execute(Runnable action) {
        try {
            executor.execute(guarded(action));
        } catch (RejectedExecutionException e) {
            LOG.debug("The JobManager main thread is closed; dropped an action");
        }
    }

    @Override
    public Cancellable schedule(Runnable action, long delayMs) {
        try {
            ScheduledFuture<?> future = executor.schedule(guarded(action), delayMs, TimeUnit.MILLISECONDS);
            return () -> future.cancel(false);
        } catch (RejectedExecutionException e) {
            LOG.debug("The JobManager main thread is closed; dropped a timer");
            return () -> { };
        }
    }

    public Cancellable scheduleAtFixedRate(Runnable action, long periodMs) {
        try {
            ScheduledFuture<?> future = executor.scheduleWithFixedDelay(guarded(action), periodMs, periodMs,
                    TimeUnit.MILLISECONDS);
            return () -> future.cancel(false);
        } catch (RejectedExecutionException e) {
            LOG.debug("The JobManager main thread is closed; dropped a periodic action");
            return () -> { };
        }
    }

    /**
     * Runs a call on the main thread and completes the future with its result; after the
     * JobManager closed, the future fails with an {@link IllegalStateException} that says so.
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
            result.completeExceptionally(new IllegalStateException("the JobManager is shutting down"));
        }
        return result;
    }

    @Override
    public void assertRunningInMainThread() {
        if (Thread.currentThread() != thread) {
            throw new IllegalStateException("must run on the JobManager main thread, not " + Thread.currentThread().getName());
        }
    }

    /** Sets what happens when an action throws; see {@link #uncaught}. */
    public void onUncaughtException(java.util.function.Consumer<Throwable> handler) {
        this.uncaught = handler;
    }

    private Runnable guarded(Runnable action) {
        return () -> {
            try {
                action.run();
            } catch (Throwable t) {
                LOG.error("Unhandled error on the JobManager main thread", t);
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
