package io.duraflow.taskmanager;

import io.duraflow.exchange.blocking.TaskManagerPartitions;
import io.duraflow.mailbox.Mailbox;
import io.duraflow.rpc.Rpc;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.RegisterTaskManagerRequest;
import io.duraflow.rpc.proto.TaskState;
import io.duraflow.rpc.proto.TaskStateUpdate;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What this TaskManager does when it loses its JobManager leader, until the next leader has taken
 * over what it kept: loss, registration, adoption, timeout. Mailbox only, like the executor that
 * owns it. See docs/design/leader-change-adoption.md#leaderhandover.
 */
final class LeaderHandover {
    /** Logs as the TaskExecutor, whose lines these were, so that searches of the logs still find them. */
    private static final Logger LOG = LoggerFactory.getLogger(TaskExecutor.class);

    private final Mailbox mailbox;
    private final TaskSlotTable slots;
    private final KeptTasks kept;
    private final JobPlanCache plans;
    /** Shared with task and gRPC threads on purpose: see its threading rules. */
    private final TaskManagerPartitions partitions;
    private final FinalReports finalReports;
    private final TaskReporter reporter;
    private final JobManagerConnection connection;
    private final TaskCheckpointCalls checkpointCalls;
    private final OperatorEventSender operatorEvents;
    /** {@code taskmanager.leader-loss.timeout}: 0 cancels the tasks when the leader is lost. */
    private final long leaderLossTimeoutMs;
    /** Registrations with a leader, and JobManagers lost, since start (metrics). */
    private long registrations;
    private long jobManagersLost;

    LeaderHandover(Mailbox mailbox, TaskSlotTable slots, KeptTasks kept, JobPlanCache plans,
            TaskManagerPartitions partitions, FinalReports finalReports, TaskReporter reporter,
            JobManagerConnection connection, TaskCheckpointCalls checkpointCalls, OperatorEventSender operatorEvents,
            long leaderLossTimeoutMs) {
        this.mailbox = mailbox;
        this.slots = slots;
        this.kept = kept;
        this.plans = plans;
        this.partitions = partitions;
        this.finalReports = finalReports;
        this.reporter = reporter;
        this.connection = connection;
        this.checkpointCalls = checkpointCalls;
        this.operatorEvents = operatorEvents;
        this.leaderLossTimeoutMs = leaderLossTimeoutMs;
    }

    long registrations() {
        return registrations;
    }

    long jobManagersLost() {
        return jobManagersLost;
    }

    /** The JobManager is gone: keep or stop the tasks, keep or release the partitions (see the class comment). */
    void jobManagerLost(String reason) {
        mailbox.assertRunningInMailbox();
        jobManagersLost++;
        int keptNow = 0;
        if (leaderLossTimeoutMs > 0) {
            for (TaskSlotTable.Slot slot : slots.all()) {
                if (slot.task != null) {
                    kept.keep(slot);
                    keptNow++;
                } else {
                    slots.free(slot.deployment.getAttempt());  // its plan was still being built: it never ran
                }
            }
            if (keptNow > 0) {
                kept.startDeadline(leaderLossTimeoutMs, this::leaderLossTimedOut);
            }
        } else {
            slots.cancelAll(true);  // a slot whose plan was still being built goes: it never ran
        }
        plans.clear();
        String tasks = keptNow > 0 ? "keeping " + keptNow + " running tasks for up to " + leaderLossTimeoutMs
                + " ms for a new leader to adopt" : "cancelled the tasks";
        if (partitions.keepForNextLeader(connection::isRegistered)) {
            LOG.warn("Lost the JobManager ({}): {}, keeping {} finished partitions for {} ms", reason, tasks,
                    partitions.size(), partitions.retentionTimeoutMs());
        } else {
            LOG.warn("Lost the JobManager ({}): {}, released all finished partitions", reason, tasks);
        }
    }

    /** No leader adopted these kept tasks within {@code taskmanager.leader-loss.timeout}: they stop. */
    private void leaderLossTimedOut(List<AttemptId> attempts) {
        mailbox.assertRunningInMailbox();
        LOG.warn("No JobManager adopted {} kept tasks within {} ms; cancelling them", attempts.size(),
                leaderLossTimeoutMs);
        for (AttemptId attempt : attempts) {
            TaskSlotTable.Slot slot = slots.get(attempt);
            if (slot != null && slot.task != null) {
                slot.cancelTask();
            }
        }
    }

    /**
     * Whether tasks being cancelled hold slots, which a registration waits for. Kept tasks hold
     * their slots on purpose: the registration reports them ({@code held_tasks}).
     */
    boolean slotsInUse() {
        return slots.tasks() > kept.heldCount();
    }

    /** Adds the kept partitions and tasks, and the unacknowledged finishes of earlier leaders, to a registration. */
    void describeHeld(RegisterTaskManagerRequest.Builder registration) {
        mailbox.assertRunningInMailbox();
        partitions.describeHeld(registration);
        for (KeptTasks.Kept task : kept.undecided()) {
            var held = HeldTasks.fromDeployment(task.slot().deployment);
            if (task.slot().streaming != null) {
                task.slot().streaming.describe(held);
            } else {
                held.addAllSplits(task.slot().splitsReceived);
            }
            if (task.report() == null) {
                held.setState(TaskState.RUNNING);
            } else {
                held.setState(task.report().getState()).setRecordsIn(task.report().getRecordsIn())
                        .setRecordsOut(task.report().getRecordsOut());
            }
            registration.addHeldTasks(held);
        }
        // Finishes an earlier leader may not have logged go to the new one, which can take them
        // instead of running those tasks again (a sink whose finish was lost would write twice).
        registration.addAllEarlierFinishedReports(finalReports.finished());
    }

    /** Registered in {@code sessionId}; returns how many final reports of earlier leaders were dropped. */
    int registered(String sessionId) {
        mailbox.assertRunningInMailbox();
        registrations++;
        // A leader numbers its events (and triggers) to a task it did not deploy from 1: those of
        // this session follow what the task received before, whether they come before or after
        // the leader adopts the task (its enumerator may send as soon as it decided).
        for (TaskSlotTable.Slot slot : slots.all()) {
            slot.numberFrom(sessionId);
        }
        partitions.takenOver();
        // The answer acknowledges the earlier finishes the registration carried; the other final
        // reports of earlier sessions (failed, cancelled) concern attempts no leader runs any more.
        return finalReports.keepOnly(sessionId);
    }

    /**
     * The new leader adopted kept tasks: they belong to its session now (their deployments and
     * every later report say so), and a final report parked meanwhile goes out.
     */
    void adopt(String session, List<AttemptId> attempts, TaskExecutor.Reply reply) {
        mailbox.assertRunningInMailbox();
        int running = 0;
        for (AttemptId attempt : attempts) {
            TaskSlotTable.Slot slot = slots.get(attempt);
            if (slot != null) {
                slot.deployment = slot.deployment.toBuilder().setJmSessionId(session).build();
                checkpointCalls.adopted(slot);
                operatorEvents.adopted(slot, session);
                running++;
            }
            TaskStateUpdate parked = kept.adopt(attempt, session);
            if (parked != null) {
                reporter.ended(parked);
            } else if (slot == null) {
                LOG.warn("A new leader adopted {}, which no longer runs here", Rpc.describe(attempt));
            }
        }
        LOG.info("The leader of session {} adopted {} tasks ({} still running)", session, attempts.size(), running);
        reply.ok();
    }
}
