package io.duraflow.taskmanager;

import java.util.PriorityQueue;

/**
 * A {@link Mailbox} for tests: mails run only when the test calls {@link #runDue()} or
 * {@link #advance}, on the test's thread, which counts as the mailbox thread only while it runs
 * them; time moves only through {@link #advance}. Other threads (plan builds, fake calls
 * answered elsewhere) may enqueue at any time. A mail that throws fails the test at once.
 */
final class ManualMailbox implements Mailbox {
    private final PriorityQueue<Timer> timers = new PriorityQueue<>();
    private long nowMs;
    private long submitted;
    /** The thread running mails right now, null between runs. */
    private volatile Thread running;

    private final class Timer implements Comparable<Timer>, Cancellable {
        final long dueMs;
        final long order;
        final Runnable mail;
        volatile boolean cancelled;

        Timer(long dueMs, Runnable mail) {
            this.dueMs = dueMs;
            this.order = submitted++;
            this.mail = mail;
        }

        @Override
        public void cancel() {
            cancelled = true;
        }

        @Override
        public int compareTo(Timer other) {
            return dueMs != other.dueMs ? Long.compare(dueMs, other.dueMs) : Long.compare(order, other.order);
        }
    }

    @Override
    public synchronized void execute(Runnable mail) {
        timers.add(new Timer(nowMs, mail));
    }

    @Override
    public synchronized Cancellable schedule(Runnable mail, long delayMs) {
        Timer timer = new Timer(nowMs + delayMs, mail);
        timers.add(timer);
        return timer;
    }

    @Override
    public synchronized long now() {
        return nowMs;
    }

    @Override
    public void assertRunningInMailbox() {
        if (Thread.currentThread() != running) {
            throw new IllegalStateException("must run in the TaskExecutor's mailbox, not on "
                    + Thread.currentThread().getName());
        }
    }

    /** Runs every mail due now, including those they enqueue. */
    int runDue() {
        return advance(0);
    }

    /** Moves the clock forward by {@code ms}, running each mail at its due time, in order. */
    int advance(long ms) {
        long target;
        synchronized (this) {
            target = nowMs + ms;
        }
        int ran = 0;
        running = Thread.currentThread();
        try {
            for (Timer timer = nextDue(target); timer != null; timer = nextDue(target)) {
                timer.mail.run();
                ran++;
            }
        } finally {
            running = null;
        }
        return ran;
    }

    private synchronized Timer nextDue(long targetMs) {
        while (!timers.isEmpty() && timers.peek().dueMs <= targetMs) {
            Timer timer = timers.poll();
            if (!timer.cancelled) {
                nowMs = Math.max(nowMs, timer.dueMs);
                return timer;
            }
        }
        nowMs = Math.max(nowMs, targetMs);
        return null;
    }

    /** Mails due now, not called off. */
    synchronized long due() {
        return timers.stream().filter(t -> !t.cancelled && t.dueMs <= nowMs).count();
    }
}
