package io.duraflow.jobmanager.jobmaster.coordination;

import io.duraflow.api.source.SplitEnumeratorContext;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.BiConsumer;

/**
 * The periodic work a source's split enumerator asks for ({@link SplitEnumeratorContext#callAsync}),
 * run for its {@link SourceCoordinator}: the work itself (user code, blocking I/O such as listing a
 * directory) on the worker of {@link SourceCoordinator.AsyncServices}, its result handed back in a
 * mail to the main thread, where the handler runs and the coordinator then reports the assignments
 * it made. Work asked for before the coordinator is live waits until {@link #goLive}. Replacing or
 * closing the enumerator ({@link #stop}) stops the work the old one asked for and drops a result
 * that comes back for it; so does a handler that throws, which is reported to {@code failed}
 * (the job fails over) instead of escaping the main thread.
 *
 * <p>Threading: main thread only. The work runs on the worker but touches nothing here; {@link
 * #check} touches nothing either, so it may run on the thread of an enumerator's start.
 */
final class EnumeratorPeriodicWork {
    /** Runs on the main thread after every handler. */
    @FunctionalInterface
    interface AfterHandler {
        void run() throws Exception;
    }

    private final String sourceName;
    private final AfterHandler afterHandler;
    /** Where the work runs; null: the enumerator may not ask for any. */
    private SourceCoordinator.AsyncServices services;
    private boolean live;
    /** Work asked for before {@link #goLive}, started then. */
    private final List<Runnable> beforeLive = new ArrayList<>();
    /**
     * Bumped whenever the enumerator is replaced or closed: work the old one asked for stops, and
     * a result that comes back for it is dropped.
     */
    private int generation;

    EnumeratorPeriodicWork(String sourceName, AfterHandler afterHandler) {
        this.sourceName = sourceName;
        this.afterHandler = afterHandler;
    }

    /** Where the work runs; before the enumerator may ask for any. */
    void services(SourceCoordinator.AsyncServices services) {
        this.services = services;
    }

    /** Whether the enumerator may ask for periodic work. */
    boolean available() {
        return services != null;
    }

    /**
     * Throws what asking for this work throws: without {@code available} threads, or with a
     * negative delay or period. Touches no state.
     */
    void check(boolean available, long initialDelayMs, long periodMs) {
        if (!available) {
            throw new UnsupportedOperationException("source '" + sourceName + "' asked for periodic work, but its"
                    + " coordinator was given no threads to run it on");
        }
        if (initialDelayMs < 0 || periodMs < 0) {
            throw new IllegalArgumentException("source '" + sourceName + "' asked for periodic work with delay "
                    + initialDelayMs + " ms and period " + periodMs + " ms; neither may be negative");
        }
    }

    /** The current enumerator asks for periodic work ({@link SplitEnumeratorContext#callAsync}). */
    <T> void call(Callable<T> work, BiConsumer<T, Throwable> handler, long initialDelayMs, long periodMs) {
        check(available(), initialDelayMs, periodMs);
        int forGeneration = generation;
        Runnable first = () -> runAfter(forGeneration, work, handler, initialDelayMs, periodMs);
        if (!live) {
            // Asked for by the start: no result may reach the enumerator before it is live.
            beforeLive.add(first);
            return;
        }
        first.run();
    }

    /** The coordinator is live: work asked for before starts now. */
    void goLive() {
        live = true;
        List<Runnable> waiting = List.copyOf(beforeLive);
        beforeLive.clear();
        waiting.forEach(Runnable::run);
    }

    /** The enumerator is replaced or closed: the work it asked for stops. */
    void stop() {
        generation++;
    }

    /** Runs the work once after the delay, hands its result over on the main thread, then repeats (fixed delay). */
    private <T> void runAfter(int forGeneration, Callable<T> work, BiConsumer<T, Throwable> handler, long delayMs,
            long periodMs) {
        SourceCoordinator.AsyncServices services = this.services;
        services.mainThread().schedule(() -> {
            if (generation != forGeneration) {
                return;
            }
            services.worker().execute(() -> {
                T value = null;
                Throwable error = null;
                try {
                    value = work.call();
                } catch (Exception | LinkageError e) {
                    error = e;
                }
                T result = value;
                Throwable failure = error;
                services.mainThread().execute(() -> {
                    if (generation != forGeneration) {
                        return;
                    }
                    try {
                        handler.accept(result, failure);
                        afterHandler.run();
                    } catch (Exception | LinkageError | AssertionError e) {
                        generation++;
                        services.failed().accept(e);
                        return;
                    }
                    if (periodMs > 0) {
                        runAfter(forGeneration, work, handler, periodMs, periodMs);
                    }
                });
            });
        }, delayMs);
    }
}
