package io.duraflow.taskmanager;

import io.duraflow.util.ManualMainThreadExecutor;

/**
 * A {@link Mailbox} for tests: the JobManager's {@link ManualMainThreadExecutor} (mails run only
 * when the test calls {@link #runDue()} or {@link #advance}, on the test's thread, in due-time
 * then submission order; time moves only through {@link #advance}), plus a stricter guard: the
 * test's thread counts as the mailbox thread only while it runs mails. Other threads (plan builds,
 * fake calls answered elsewhere) may enqueue at any time. A mail that throws fails the test at once.
 */
public final class ManualMailbox implements Mailbox {
    private final ManualMainThreadExecutor timers = new ManualMainThreadExecutor();
    /** The thread running mails right now, null between runs. */
    private volatile Thread running;

    @Override
    public void execute(Runnable mail) {
        timers.execute(mail);
    }

    @Override
    public Cancellable schedule(Runnable mail, long delayMs) {
        return timers.schedule(mail, delayMs)::cancel;
    }

    @Override
    public long now() {
        return timers.now();
    }

    @Override
    public void assertRunningInMailbox() {
        if (Thread.currentThread() != running) {
            throw new IllegalStateException("must run in the TaskExecutor's mailbox, not on "
                    + Thread.currentThread().getName());
        }
    }

    /** Runs every mail due now, including those they enqueue. */
    public int runDue() {
        return advance(0);
    }

    /** Moves the clock forward by {@code ms}, running each mail at its due time, in order. */
    public int advance(long ms) {
        running = Thread.currentThread();
        try {
            return timers.advance(ms);
        } finally {
            running = null;
        }
    }

    /** Whether a mail that was not called off is due now. */
    boolean hasDue() {
        return timers.nextDueMs().orElse(Long.MAX_VALUE) <= timers.now();
    }
}
