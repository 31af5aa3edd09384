package io.duraflow.jobmanager;

/** Runs actions on the owner's main thread, now or later. Tests drive it by hand. */
public interface Scheduler extends java.util.concurrent.Executor {
    @Override
    void execute(Runnable action);

    Cancellable schedule(Runnable action, long delayMs);

    /** A scheduled action that may still be called off. */
    interface Cancellable {
        void cancel();
    }
}
