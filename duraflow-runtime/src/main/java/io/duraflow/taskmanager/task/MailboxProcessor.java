package io.duraflow.taskmanager.task;

import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The loop of a task thread: it runs the default action (process the next part of the input)
 * again and again, and between two runs the mails other threads put (cancel, operator events;
 * with streaming also checkpoint triggers and timers). Operators are therefore only ever touched
 * by the task thread, and a mail never runs in the middle of a record.
 *
 * <p>Cost per default action when no mail is pending: one volatile read. A default action that
 * runs long (a blocking channel streams a whole partition) calls {@link #yieldToMails()} after
 * every buffer, which costs the same.
 *
 * <p>An exception thrown by a mail or the default action ends the loop with that exception: the
 * task fails with it as the cause.
 */
public final class MailboxProcessor {
    /** Work that runs on the task thread. */
    @FunctionalInterface
    public interface Mail {
        void run() throws Exception;
    }

    /** The work the loop does when no mail is pending. */
    @FunctionalInterface
    public interface DefaultAction {
        void run(Controller controller) throws Exception;
    }

    /** What a default action may tell the loop. */
    public interface Controller {
        /** The input is processed: the loop returns once the mails already put have run. */
        void allActionsCompleted();

        /** Nothing to do until a mail arrives (a source waiting for splits), or at most {@code maxWaitMs}. */
        void suspendUntilMail(long maxWaitMs);

        /**
         * Like {@link #suspendUntilMail}, but the task waits because an output is unavailable: the
         * wait counts as backpressured time ({@link TaskTimes}), not idle time.
         */
        void suspendUntilOutput(long maxWaitMs);
    }

    private final ConcurrentLinkedQueue<Mail> mails = new ConcurrentLinkedQueue<>();
    /** Set by {@link #put} after adding, cleared by the task thread before draining: never misses a mail. */
    private volatile boolean hasMail;
    private final Object arrival = new Object();
    private final DefaultAction defaultAction;
    private final Controller controller = new Controller() {
        @Override
        public void allActionsCompleted() {
            completed = true;
        }

        @Override
        public void suspendUntilMail(long maxWaitMs) {
            suspendMs = maxWaitMs;
            suspendForOutput = false;
        }

        @Override
        public void suspendUntilOutput(long maxWaitMs) {
            suspendMs = maxWaitMs;
            suspendForOutput = true;
        }
    };
    private boolean completed;
    private long suspendMs;
    /** Whether the suspension {@link #suspendMs} asks for waits for an output (backpressure). */
    private boolean suspendForOutput;
    private final TaskTimes times;
    /** See {@link #onMailArrival}. */
    private volatile Runnable mailArrival;

    public MailboxProcessor(DefaultAction defaultAction) {
        this(defaultAction, new TaskTimes(System::nanoTime));
    }

    MailboxProcessor(DefaultAction defaultAction, TaskTimes times) {
        this.defaultAction = defaultAction;
        this.times = times;
    }

    /** Where the task thread's time went; {@link TaskTimes#latest()} from any thread. */
    TaskTimes times() {
        return times;
    }

    /** Any thread: runs {@code mail} on the task thread before its next default action. */
    public void put(Mail mail) {
        mails.add(mail);
        hasMail = true;
        synchronized (arrival) {
            arrival.notifyAll();
        }
        Runnable listener = mailArrival;
        if (listener != null) {
            listener.run();
        }
    }

    /**
     * Runs {@code listener} on the putting thread after each {@link #put}, or nothing with null: a
     * default action that may block outside the mailbox (a source reader waiting in its client)
     * is told to return, so the mail does not wait for it. The listener must be cheap and thread-safe.
     */
    public void onMailArrival(Runnable listener) {
        mailArrival = listener;
    }

    /**
     * Task thread: runs until the default action reports {@link Controller#allActionsCompleted()}
     * and the mails pending at that moment have run.
     *
     * @throws Exception what a mail or the default action threw; the loop stops there
     */
    public void runMailboxLoop() throws Exception {
        while (true) {
            if (yieldToMails()) {
                // A mail may be what a suspended action waited for (a split): try the action again.
                suspendMs = 0;
            }
            if (completed) {
                return;
            }
            if (suspendMs > 0) {
                long waitMs = suspendMs;
                suspendMs = 0;
                awaitMail(waitMs, suspendForOutput);
                continue;
            }
            defaultAction.run(controller);
        }
    }

    /**
     * Task thread, also from inside a default action between two buffers: runs the pending mails.
     *
     * @return whether any ran
     */
    public boolean yieldToMails() throws Exception {
        if (!hasMail) {
            return false;
        }
        hasMail = false;
        Mail mail;
        while ((mail = mails.poll()) != null) {
            mail.run();
        }
        return true;
    }

    private void awaitMail(long maxWaitMs, boolean forOutput) throws InterruptedException {
        synchronized (arrival) {
            if (!hasMail) {
                long startNanos = times.nanoTime();
                try {
                    arrival.wait(maxWaitMs);
                } finally {
                    times.waited(forOutput, times.nanoTime() - startNanos);
                }
            }
        }
    }
}
