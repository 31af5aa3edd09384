package io.duraflow.taskmanager;

/**
 * The TaskExecutor's single thread of control. Its slots, tasks, plans, final reports and
 * registration are touched only by mails running here; gRPC, heartbeat-answer, plan-build and task
 * threads only {@link #execute enqueue}. Mails run one at a time, in the order they were enqueued
 * (timers when they are due), so a handler never sees another half done.
 *
 * <p>{@link ThreadMailbox} is the real one; tests drive a manual one step by step with a manual
 * clock.
 */
public interface Mailbox {
    /** Enqueues a mail; it runs after every mail enqueued before it. Any thread. */
    void execute(Runnable mail);

    /** Enqueues a mail once {@code delayMs} have passed on {@link #now()}'s clock. Any thread. */
    Cancellable schedule(Runnable mail, long delayMs);

    /** The mailbox's clock, in milliseconds. */
    long now();

    /** Throws unless called from a mail: guards every method that changes the executor's state. */
    void assertRunningInMailbox();

    /** A scheduled mail that can be called off; calling off one that ran does nothing. */
    interface Cancellable {
        void cancel();
    }
}
