package io.duraflow.taskmanager;

import io.duraflow.mailbox.Mailbox;

import io.duraflow.rpc.Rpc;
import io.duraflow.rpc.proto.TaskDeployment;
import io.duraflow.rpc.proto.TaskState;
import io.duraflow.rpc.proto.TaskStateUpdate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends the tasks' state reports to the leading JobManager: RUNNING once, on a best-effort basis;
 * a final report (FINISHED, FAILED, CANCELED) is kept in {@link FinalReports} until the JobManager
 * acknowledges it, so that a call lost on the way is made good by the next heartbeat, which
 * carries it (see {@link TaskExecutor} for the whole protocol). A final report of an attempt an
 * earlier JobManager deployed is dropped once this TaskManager is registered with another one.
 *
 * <p>Mailbox only, like the executor that owns it: answers of the calls hop back into the mailbox.
 */
final class TaskReporter {
    private static final Logger LOG = LoggerFactory.getLogger(TaskReporter.class);

    private final String tmId;
    private final Mailbox mailbox;
    private final JobManagerConnection connection;
    private final FinalReports finalReports;

    TaskReporter(String tmId, Mailbox mailbox, JobManagerConnection connection, FinalReports finalReports) {
        this.tmId = tmId;
        this.mailbox = mailbox;
        this.connection = connection;
        this.finalReports = finalReports;
    }

    static boolean isFinal(TaskState state) {
        return state == TaskState.FINISHED || state == TaskState.FAILED || state == TaskState.CANCELED;
    }

    /** A final report of the deployment's attempt, for a task that never reported itself (it never ran). */
    TaskStateUpdate.Builder finalReport(TaskDeployment deployment, TaskState state) {
        return TaskStateUpdate.newBuilder().setJmSessionId(deployment.getJmSessionId()).setTmId(tmId)
                .setAttempt(deployment.getAttempt()).setState(state);
    }

    /** Sends a report that is not final (RUNNING): once, and not kept. */
    void report(TaskStateUpdate update) {
        mailbox.assertRunningInMailbox();
        send(update, null);
    }

    /** A task ended (or was found unable to start): keep its final report until acknowledged, and send it. */
    void ended(TaskStateUpdate report) {
        mailbox.assertRunningInMailbox();
        if (connection.isRegistered() && !report.getJmSessionId().equals(connection.sessionId())) {
            LOG.info("Dropping the {} report of {}: it belongs to an earlier JobManager", report.getState(),
                    Rpc.describe(report.getAttempt()));
            return;
        }
        send(report, finalReports.add(report));
    }

    /** Sends a report; a final one ({@code pending} not null) is forgotten once the call succeeds. */
    private void send(TaskStateUpdate report, FinalReports.Pending pending) {
        JobManagerClient client = connection.client();
        if (client == null) {
            return;
        }
        String key = Rpc.describe(report.getAttempt());
        if (pending != null) {
            pending.sending = true;
        }
        client.updateTaskState(report).whenComplete((ack, error) -> mailbox.execute(() -> {
            if (pending == null || !finalReports.isCurrent(pending)) {
                if (error != null) {
                    LOG.debug("Could not report {} of {} to the JobManager: {}", report.getState(), key,
                            Rpc.message(error));
                }
            } else if (error == null) {
                finalReports.delivered(pending);
            } else {
                pending.sending = false;
                LOG.info("Could not report {} of {} to the JobManager ({}); the next heartbeat carries it",
                        report.getState(), key, Rpc.message(error));
            }
        }));
    }
}
