package io.duraflow.mailbox;

import java.util.concurrent.Executor;

/**
 * A single thread of control: the JobManager's main thread (dispatcher, resource manager, job
 * masters) and each TaskManager's TaskExecutor keep their state in mails that run here; gRPC,
 * I/O, plan-build and task threads only {@link #execute enqueue}. Mails run one at a time, in
 * the order they were enqueued (timers when they are due), so a handler never sees another half
 * done, and state touched only from mails needs no lock and no volatile.
 *
 * <p>{@link ThreadMailbox} is the real one, on a thread of its own with the wall clock; tests
 * drive a manual one step by step with a manual clock.
 */
public interface Mailbox extends Executor {
    /** Enqueues a mail; it runs after every mail enqueued before it. Any thread. */
    @Override
    void execute(Runnable mail);

    /** Enqueues a mail once {@code delayMs} have passed on {@link #now()}'s clock. Any thread. */
    Cancellable schedule(Runnable mail, long delayMs);

    /** The mailbox's clock, in milliseconds. */
    long now();

    /**
     * Throws {@link IllegalStateException} unless called from a mail. State-changing methods of
     * components that live in the mailbox call it first, so a call from a gRPC or I/O thread fails
     * loudly instead of racing.
     */
    void assertRunningInMailbox();

    /** A scheduled mail that can be called off; calling off one that ran does nothing. */
    interface Cancellable {
        void cancel();
    }
}
