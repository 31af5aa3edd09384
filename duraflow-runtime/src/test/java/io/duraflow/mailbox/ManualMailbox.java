package io.duraflow.mailbox;

import java.util.OptionalLong;
import java.util.PriorityQueue;

/**
 * The manual {@link Mailbox}, for tests: nothing runs until the test says so, and time moves
 * only through {@link #advance}. Actions given to {@link #execute} are due now and run on the
 * next {@link #runDue()} or {@link #advance}; actions due at the same time run in the order
 * they were submitted.
 *
 * <p>Actions run on the thread that calls {@link #runDue()} or {@link #advance}, the test's
 * "main thread". Other threads (say, a job event writer completing a future) may submit actions
 * at any time; they run on the next call, like those of the main thread.
 *
 * <p>Its guard has two modes. By default the test's thread is the owner at any time, so a test
 * may call a component's methods directly. {@link #guardingMailsOnly()} is stricter: the test's
 * thread counts as the mailbox only while it runs mails, which catches a component that changes
 * its state from a caller's thread (the TaskExecutor's tests use it).
 */
public final class ManualMailbox implements Mailbox {
    private final PriorityQueue<Timer> timers = new PriorityQueue<>();
    private long nowMs;
    private long submitted;

    private final class Timer implements Comparable<Timer>, Cancellable {
        final long dueMs;
        final long order;
        final Runnable action;
        volatile boolean cancelled;

        Timer(long dueMs, Runnable action) {
            this.dueMs = dueMs;
            this.order = submitted++;
            this.action = action;
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

    /** The test's "main thread": the one that created this mailbox and runs its actions. */
    private final Thread owner = Thread.currentThread();
    private final boolean mailsOnly;
    /** The thread running mails right now, null between runs; used when {@link #mailsOnly}. */
    private volatile Thread running;

    public ManualMailbox() {
        this(false);
    }

    private ManualMailbox(boolean mailsOnly) {
        this.mailsOnly = mailsOnly;
    }

    /** A manual mailbox whose guard passes only inside mails it runs; see the class comment. */
    public static ManualMailbox guardingMailsOnly() {
        return new ManualMailbox(true);
    }

    @Override
    public void assertRunningInMailbox() {
        if (mailsOnly) {
            if (Thread.currentThread() != running) {
                throw new IllegalStateException("must run in the mailbox, not on " + Thread.currentThread().getName());
            }
            return;
        }
        if (Thread.currentThread() != owner) {
            throw new IllegalStateException("must run on the test's main thread (" + owner.getName() + "), not "
                    + Thread.currentThread().getName());
        }
    }

    /** The manual clock, in milliseconds; pass {@code scheduler::now} where a LongSupplier is wanted. */
    @Override
    public synchronized long now() {
        return nowMs;
    }

    @Override
    public synchronized void execute(Runnable action) {
        timers.add(new Timer(nowMs, action));
    }

    @Override
    public synchronized Cancellable schedule(Runnable action, long delayMs) {
        if (delayMs < 0) {
            throw new IllegalArgumentException("negative delay " + delayMs + " ms");
        }
        Timer timer = new Timer(nowMs + delayMs, action);
        timers.add(timer);
        return timer;
    }

    /** Runs every action due by now, including those that running actions submit for now. */
    public int runDue() {
        return runUntil(now());
    }

    /** Moves the clock forward by {@code ms}, running each action at its due time, in order. */
    public int advance(long ms) {
        if (ms < 0) {
            throw new IllegalArgumentException("time does not go back: " + ms + " ms");
        }
        return runUntil(now() + ms);
    }

    /**
     * Like {@link #advance}, but stops after the first action after which {@code stop} holds, so a
     * test can act between two steps of a chain of main-thread actions.
     *
     * @return whether it stopped there (else the clock is at the target and nothing due is left)
     */
    public boolean advanceUntil(long ms, java.util.function.BooleanSupplier stop) {
        if (ms < 0) {
            throw new IllegalArgumentException("time does not go back: " + ms + " ms");
        }
        long targetMs = now() + ms;
        for (Timer timer = nextDue(targetMs); timer != null; timer = nextDue(targetMs)) {
            run(timer);
            if (stop.getAsBoolean()) {
                return true;
            }
        }
        return false;
    }

    private int runUntil(long targetMs) {
        int ran = 0;
        for (Timer timer = nextDue(targetMs); timer != null; timer = nextDue(targetMs)) {
            run(timer);
            ran++;
        }
        return ran;
    }

    private void run(Timer timer) {
        Thread before = running;
        running = Thread.currentThread();
        try {
            timer.action.run();
        } finally {
            running = before;
        }
    }

    /** Whether a mail that was not called off is due now. */
    public boolean hasDue() {
        return nextDueMs().orElse(Long.MAX_VALUE) <= now();
    }

    /** The next action due by {@code targetMs}, with the clock moved to it; or null, the clock at the target. */
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

    /** When the next action that was not called off is due, if any. */
    public synchronized OptionalLong nextDueMs() {
        return timers.stream().filter(t -> !t.cancelled).mapToLong(t -> t.dueMs).min();
    }

    /** Actions waiting to run that were not called off. */
    public synchronized long pending() {
        return timers.stream().filter(t -> !t.cancelled).count();
    }
}
