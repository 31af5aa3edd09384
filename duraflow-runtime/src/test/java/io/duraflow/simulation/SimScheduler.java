package io.duraflow.simulation;

import io.duraflow.mailbox.Mailbox;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Random;

/**
 * The simulation's single thread of control and its virtual clock. Every process of the simulated
 * cluster owns {@link SimMailbox}es (its main thread, its I/O threads, its task threads), and so
 * does the network; {@link #step} runs one mail that is due, of a mailbox the seeded random picks
 * among those that have one, and moves the clock to the next due mail when none is due. Mails of
 * one mailbox run in their order (time, then submission), as in a real mailbox; mails of two
 * mailboxes interleave as the seed says.
 *
 * <p>A dead process's mailboxes drop what they hold and everything sent to them later; a frozen
 * process's mailboxes keep their mails but run none until it thaws (its timers, once due, run
 * then). An exception that escapes a mail is recorded, never swallowed: the cluster's invariants
 * fail on it.
 *
 * <p>Everything runs on the thread that created the scheduler; a mail sent from any other thread
 * is recorded as an escape too, since it would make the run depend on that thread's timing.
 */
final class SimScheduler {
    private final Random random;
    private final Thread owner = Thread.currentThread();
    private final List<SimMailbox> mailboxes = new ArrayList<>();
    private final List<String> escapes = new ArrayList<>();
    private long nowMs;
    private long submitted;
    private long mailsRun;
    private SimMailbox running;

    SimScheduler(Random random) {
        this.random = random;
    }

    long now() {
        return nowMs;
    }

    long mailsRun() {
        return mailsRun;
    }

    /** Exceptions that escaped a mail, and mails sent from other threads, as one line each. */
    List<String> escapes() {
        return escapes;
    }

    SimMailbox mailbox(String name, SimProcess process) {
        SimMailbox mailbox = new SimMailbox(name, process);
        mailboxes.add(mailbox);
        return mailbox;
    }

    /**
     * Runs one due mail of a mailbox picked by the seed; if none is due, first moves the clock to
     * the earliest mail (but not past {@code limitMs}).
     *
     * @return false when nothing is due by {@code limitMs}: the clock is at the limit then
     */
    boolean step(long limitMs) {
        List<SimMailbox> due = new ArrayList<>();
        long next = Long.MAX_VALUE;
        mailboxes.removeIf(m -> !m.process.alive() && m.timers.isEmpty());
        for (SimMailbox mailbox : mailboxes) {
            long at = mailbox.nextDueMs();
            if (at <= nowMs) {
                due.add(mailbox);
            }
            next = Math.min(next, at);
        }
        if (due.isEmpty()) {
            if (next > limitMs) {
                nowMs = Math.max(nowMs, limitMs);
                return false;
            }
            nowMs = next;
            return true;
        }
        due.get(due.size() == 1 ? 0 : random.nextInt(due.size())).runOne();
        return true;
    }

    private void escaped(String line) {
        escapes.add("t=" + nowMs + " " + line);
    }

    /** One mailbox of a process: see the class comment. */
    final class SimMailbox implements Mailbox {
        private final String name;
        private final SimProcess process;
        private final PriorityQueue<Timer> timers = new PriorityQueue<>();

        private SimMailbox(String name, SimProcess process) {
            this.name = name;
            this.process = process;
        }

        private final class Timer implements Comparable<Timer>, Cancellable {
            final long dueMs;
            final long order = submitted++;
            final Runnable mail;
            boolean cancelled;

            Timer(long dueMs, Runnable mail) {
                this.dueMs = dueMs;
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
        public void execute(Runnable mail) {
            schedule(mail, 0);
        }

        @Override
        public Cancellable schedule(Runnable mail, long delayMs) {
            if (Thread.currentThread() != owner) {
                escaped(name + ": a mail came from thread " + Thread.currentThread().getName());
                return () -> { };
            }
            if (!process.alive()) {
                return () -> { };
            }
            Timer timer = new Timer(nowMs + Math.max(0, delayMs), mail);
            timers.add(timer);
            return timer;
        }

        @Override
        public long now() {
            return nowMs;
        }

        @Override
        public void assertRunningInMailbox() {
            if (running != this) {
                throw new IllegalStateException("must run in the " + name + " mailbox, not in "
                        + (running == null ? "the test" : running.name));
            }
        }

        /** When the next mail is due; never for a dead or frozen process. */
        long nextDueMs() {
            if (!process.alive()) {
                timers.clear();
                return Long.MAX_VALUE;
            }
            while (!timers.isEmpty() && timers.peek().cancelled) {
                timers.poll();
            }
            return process.frozen() || timers.isEmpty() ? Long.MAX_VALUE : timers.peek().dueMs;
        }

        void runOne() {
            Timer timer = timers.poll();
            SimMailbox before = running;
            running = this;
            mailsRun++;
            try {
                timer.mail.run();
            } catch (Throwable t) {
                escaped(name + ": " + t);
                SimLog.LOG.error("A mail of {} threw", name, t);
            } finally {
                running = before;
            }
        }

        @Override
        public String toString() {
            return name;
        }
    }
}
