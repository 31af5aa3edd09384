package io.duraflow.state.rocksdb;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * Runs a batch of file transfers (uploads of a snapshot's files, downloads of a restore) in
 * parallel on the TaskManager's transfer pool and waits for all of them.
 *
 * <p>Rules:
 * <ol>
 *   <li>Every transfer is accounted for: the caller returns only after each one has finished or
 *       never started, so nothing is written behind its back after it gave up.</li>
 *   <li>The first failure, an interrupt of the waiting thread, or {@code stopRequested} stops the
 *       batch: transfers not started are skipped, running ones see their {@code stopped} supplier turn true between
 *       chunks and give up (deleting what they wrote).</li>
 *   <li>When the batch fails, {@code discard} gets every result that was produced, so the caller's
 *       files of a failed batch are deleted; then the failure is thrown (an interrupt as {@link
 *       InterruptedIOException}).</li>
 * </ol>
 */
final class Transfers {
    private Transfers() {
    }

    /** One transfer; {@code stopped} says whether to give up (check it between chunks). */
    interface Job<T> {
        T run(BooleanSupplier stopped) throws Exception;
    }

    /** Results in the order of {@code jobs}. */
    static <T> List<T> runAll(List<Job<T>> jobs, Executor pool, BooleanSupplier stopRequested, Consumer<T> discard,
            String what) throws IOException {
        int count = jobs.size();
        List<T> results = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            results.add(null);
        }
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Exception> failure = new AtomicReference<>();
        CountDownLatch done = new CountDownLatch(count);
        BooleanSupplier stopped = () -> stop.get() || stopRequested.getAsBoolean();
        for (int i = 0; i < count; i++) {
            int index = i;
            Job<T> job = jobs.get(i);
            Runnable task = () -> {
                try {
                    if (!stopped.getAsBoolean()) {
                        T result = job.run(stopped);
                        synchronized (results) {
                            results.set(index, result);
                        }
                    }
                } catch (Exception | Error e) {
                    failure.compareAndSet(null, e instanceof Exception ex ? ex : new IOException(e));
                    stop.set(true);
                } finally {
                    done.countDown();
                }
            };
            try {
                pool.execute(task);
            } catch (RejectedExecutionException e) {
                failure.compareAndSet(null, new IOException(what + ": the transfer pool is shut down", e));
                stop.set(true);
                for (int j = i; j < count; j++) {
                    done.countDown();
                }
                break;
            }
        }
        boolean interrupted = false;
        while (true) {
            try {
                done.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
                stop.set(true);
            }
        }
        if (interrupted || failure.get() != null || stopRequested.getAsBoolean()) {
            synchronized (results) {
                for (T result : results) {
                    if (result != null) {
                        discard.accept(result);
                    }
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException(what + " was interrupted");
            }
            Exception cause = failure.get();
            if (cause instanceof IOException io) {
                throw io;
            }
            if (cause == null) {
                throw new InterruptedIOException(what + " was stopped");
            }
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new IOException(what + " failed: " + cause.getMessage(), cause);
        }
        return results;
    }
}
