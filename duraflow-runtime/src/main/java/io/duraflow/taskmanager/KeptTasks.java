package io.duraflow.taskmanager;

import io.duraflow.mailbox.Mailbox;

import io.duraflow.rpc.Rpc;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.TaskStateUpdate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Tasks this TaskManager kept running when it lost its JobManager
 * ({@code taskmanager.leader-loss.timeout}), until a new leader adopts them, cancels them, or the
 * timeout cancels them.
 *
 * <ul>
 *   <li><b>Held</b>: kept, not adopted yet. Registering with a new leader reports them ({@code
 *       held_tasks}); their messages to the JobManager carry the old session, which the new leader
 *       refuses, so a task that needs the JobManager (a split request) waits and tries again.
 *   <li><b>Parked</b>: a held task ended before a new leader decided on it; its final report
 *       waits here, is reported with the registration (a task that FINISHED can be adopted as
 *       well: its output is there), is sent (in the new session) if the task is adopted, and is
 *       dropped if it is cancelled or the timeout passes.
 *   <li><b>Adopted</b>: the new leader took the task over; from now on every report of the task is
 *       stamped with the adopting session instead of the one that deployed it.
 * </ul>
 *
 * <p>Mailbox only, like the executor that owns it.
 */
final class KeptTasks {
    private final Mailbox mailbox;
    /** A kept task's slot (its deployment and the splits it received), and once it ended its final report. */
    record Kept(TaskSlotTable.Slot slot, TaskStateUpdate report) {}

    private final Map<String, TaskSlotTable.Slot> held = new LinkedHashMap<>();
    private final Map<String, Kept> parked = new LinkedHashMap<>();
    /** Attempt -> the session of the leader that adopted it; until its final report went out. */
    private final Map<String, String> adopted = new HashMap<>();
    private Mailbox.Cancellable deadline;

    KeptTasks(Mailbox mailbox) {
        this.mailbox = mailbox;
    }

    /** Keeps a running task through the leader change. */
    void keep(TaskSlotTable.Slot slot) {
        mailbox.assertRunningInMailbox();
        held.put(Rpc.describe(slot.deployment.getAttempt()), slot);
    }

    boolean isHeld(AttemptId attempt) {
        return held.containsKey(Rpc.describe(attempt));
    }

    /** What a registration reports: the tasks held (running; no report) and the parked ones (ended). */
    List<Kept> undecided() {
        List<Kept> all = new ArrayList<>();
        held.values().forEach(slot -> all.add(new Kept(slot, null)));
        all.addAll(parked.values());
        return all;
    }

    /** Held tasks, each in its slot. */
    int heldCount() {
        return held.size();
    }

    /**
     * Starts the leader-loss timeout unless it runs already: when it passes, {@code expired}
     * gets every attempt still held (the caller cancels them) and parked reports are dropped.
     */
    void startDeadline(long timeoutMs, java.util.function.Consumer<List<AttemptId>> expired) {
        mailbox.assertRunningInMailbox();
        if (deadline != null) {
            return;
        }
        deadline = mailbox.schedule(() -> {
            deadline = null;
            List<AttemptId> left = new ArrayList<>();
            held.values().forEach(slot -> left.add(slot.deployment.getAttempt()));
            held.clear();
            parked.clear();
            if (!left.isEmpty()) {
                expired.accept(left);
            }
        }, timeoutMs);
    }

    /**
     * A task ended: if it is held, its report is parked until a leader decides on the task, and
     * this returns true; otherwise the caller reports as usual.
     */
    boolean ended(TaskStateUpdate report) {
        mailbox.assertRunningInMailbox();
        String key = Rpc.describe(report.getAttempt());
        TaskSlotTable.Slot slot = held.remove(key);
        if (slot == null) {
            return false;
        }
        parked.put(key, new Kept(slot, report));
        return true;
    }

    /**
     * The leader of {@code session} adopted the attempt: it is no longer held, its later reports
     * carry {@code session}.
     *
     * @return its parked final report, stamped with {@code session}, or null
     */
    TaskStateUpdate adopt(AttemptId attempt, String session) {
        mailbox.assertRunningInMailbox();
        String key = Rpc.describe(attempt);
        held.remove(key);
        adopted.put(key, session);
        Kept ended = parked.remove(key);
        stopDeadlineIfIdle();
        return ended == null ? null : stamp(ended.report());
    }

    /** The leader cancelled a held attempt (it runs again elsewhere, or is stale): nothing of it goes out. */
    void forget(AttemptId attempt) {
        mailbox.assertRunningInMailbox();
        String key = Rpc.describe(attempt);
        held.remove(key);
        parked.remove(key);
        stopDeadlineIfIdle();
    }

    /** A report of the attempt as the leader that owns it must see it: with the adopting session if adopted. */
    TaskStateUpdate stamp(TaskStateUpdate report) {
        String key = Rpc.describe(report.getAttempt());
        String session = adopted.get(key);
        if (session == null) {
            return report;
        }
        if (TaskReporter.isFinal(report.getState())) {
            adopted.remove(key);
        }
        return report.toBuilder().setJmSessionId(session).build();
    }

    private void stopDeadlineIfIdle() {
        if (held.isEmpty() && parked.isEmpty() && deadline != null) {
            deadline.cancel();
            deadline = null;
        }
    }
}
