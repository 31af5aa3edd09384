package io.duraflow.util;

/** Runs actions on the owner's main thread, now or later. Tests drive it by hand. */
public interface MainThreadExecutor extends java.util.concurrent.Executor {
    @Override
    void execute(Runnable action);

    Cancellable schedule(Runnable action, long delayMs);

    /**
     * Throws {@link IllegalStateException} unless called on the owner's main thread. State-changing
     * methods of main-thread components call it first, so a call from a gRPC or I/O thread fails
     * loudly instead of racing.
     */
    void assertRunningInMainThread();

    /** A scheduled action that may still be called off. */
    interface Cancellable {
        void cancel();
    }
}
