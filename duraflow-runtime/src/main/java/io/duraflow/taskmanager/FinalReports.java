package io.duraflow.taskmanager;

import io.duraflow.mailbox.Mailbox;

import io.duraflow.rpc.Rpc;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.TaskAttemptState;
import io.duraflow.rpc.proto.TaskManagerHeartbeat;
import io.duraflow.rpc.proto.TaskStateUpdate;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The final reports (FINISHED, FAILED, CANCELED) of tasks that ended here and that the JobManager
 * has not acknowledged yet, by attempt. A report stays until the JobManager answers its own call
 * or a heartbeat that carried it; while its call is in flight heartbeats name the task's state
 * but leave the report out, since it can hold collected records (up to collect.max-bytes) that
 * should cross the network once, not once more per heartbeat.
 *
 * <p>Mailbox only.
 */
final class FinalReports {
    /** A report and whether its own call is in flight. */
    static final class Pending {
        final TaskStateUpdate report;
        boolean sending;

        Pending(TaskStateUpdate report) {
            this.report = report;
        }
    }

    private final Mailbox mailbox;
    private final Map<String, Pending> byAttempt = new LinkedHashMap<>();

    FinalReports(Mailbox mailbox) {
        this.mailbox = mailbox;
    }

    Pending add(TaskStateUpdate report) {
        mailbox.assertRunningInMailbox();
        Pending pending = new Pending(report);
        byAttempt.put(Rpc.describe(report.getAttempt()), pending);
        return pending;
    }

    boolean contains(AttemptId attempt) {
        return byAttempt.containsKey(Rpc.describe(attempt));
    }

    /** The report's call succeeded: forgotten, unless a newer report of the attempt replaced it. */
    void delivered(Pending pending) {
        mailbox.assertRunningInMailbox();
        byAttempt.remove(Rpc.describe(pending.report.getAttempt()), pending);
    }

    boolean isCurrent(Pending pending) {
        return byAttempt.get(Rpc.describe(pending.report.getAttempt())) == pending;
    }

    /** What a heartbeat tells of the ended tasks. */
    void addTo(TaskManagerHeartbeat.Builder heartbeat) {
        for (Pending pending : byAttempt.values()) {
            TaskAttemptState.Builder task = TaskAttemptState.newBuilder().setAttempt(pending.report.getAttempt())
                    .setState(pending.report.getState());
            if (!pending.sending) {
                task.setFinalReport(pending.report);
            }
            heartbeat.addTasks(task);
        }
    }

    /** The JobManager took these from a heartbeat. */
    void acknowledged(List<AttemptId> attempts) {
        mailbox.assertRunningInMailbox();
        for (AttemptId attempt : attempts) {
            byAttempt.remove(Rpc.describe(attempt));
        }
    }

    /**
     * The unacknowledged FINISHED reports, for a registration: the session that answers it is not
     * known before the answer (the announced one may have ended, see TaskExecutor), so all go.
     */
    List<TaskStateUpdate> finished() {
        mailbox.assertRunningInMailbox();
        return byAttempt.values().stream().map(pending -> pending.report)
                .filter(report -> report.getState() == io.duraflow.rpc.proto.TaskState.FINISHED).toList();
    }

    /**
     * Registered in {@code sessionId}: reports of other sessions go, since no JobManager of
     * theirs exists any more. Returns how many went.
     */
    int keepOnly(String sessionId) {
        mailbox.assertRunningInMailbox();
        int before = byAttempt.size();
        byAttempt.values().removeIf(pending -> !pending.report.getJmSessionId().equals(sessionId));
        return before - byAttempt.size();
    }
}
