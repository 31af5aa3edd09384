package io.duraflow.taskmanager;

import io.duraflow.mailbox.Mailbox;

import io.duraflow.rpc.Rpc;
import io.duraflow.rpc.proto.Ack;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.CheckpointNotification;
import io.duraflow.rpc.proto.CheckpointNotifications;
import io.duraflow.rpc.proto.TriggerCheckpointRequests;
import io.duraflow.rpc.proto.TaskInputEnded;
import io.duraflow.rpc.proto.TriggerCheckpointRequest;
import io.grpc.Status;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The checkpoint calls between streaming tasks and the JobManager, on the TaskExecutor's mailbox:
 * a trigger or notification from the JobManager goes to the task in its slot (fenced by the
 * JobManager session like every request), and a task's acknowledgement, decline or end-of-input
 * report goes to the JobManager fenced with the session that deployed the task.
 */
final class TaskCheckpointCalls implements StreamingServices.TaskCalls {
    private static final Logger LOG = LoggerFactory.getLogger(TaskCheckpointCalls.class);

    private final String tmId;
    private final Mailbox mailbox;
    private final TaskSlotTable slots;
    private final JobManagerConnection connection;

    TaskCheckpointCalls(String tmId, Mailbox mailbox, TaskSlotTable slots, JobManagerConnection connection) {
        this.tmId = tmId;
        this.mailbox = mailbox;
        this.slots = slots;
        this.connection = connection;
    }

    /**
     * gRPC thread: source tasks (or ones whose input ended) take their part of a checkpoint. The
     * call is refused (NOT_FOUND, naming them) if some are not running here; the others are triggered.
     */
    void trigger(TriggerCheckpointRequests triggers, TaskExecutor.Reply reply) {
        mailbox.execute(() -> connection.inSession(triggers.getJmSessionId(), reply, () -> {
            List<String> notRunning = new ArrayList<>();
            for (TriggerCheckpointRequest request : triggers.getTriggersList()) {
                TaskSlotTable.Slot slot = slots.get(request.getAttempt());
                if (slot == null || slot.task == null) {
                    notRunning.add(Rpc.describe(request.getAttempt()));
                    continue;
                }
                // A leader that adopted the task numbers its messages from 1 again (see TaskSlotTable.Slot).
                long sequence = slot.absolute(request.getEventSequence());
                slot.lastSequence = Math.max(slot.lastSequence, sequence);
                if (slot.streaming != null) {
                    slot.streaming.triggered(request.getCheckpointId(), sequence);
                }
                slot.task.triggerCheckpoint(request.toBuilder().setEventSequence(sequence).build());
            }
            if (notRunning.isEmpty()) {
                reply.ok();
            } else {
                reply.refuse(Status.NOT_FOUND.withDescription("task(s) " + String.join(", ", notRunning)
                        + " not running on " + tmId + "; the checkpoint cannot be triggered there")
                        .asRuntimeException());
            }
        }));
    }

    /** gRPC thread: a checkpoint completed (sinks commit) or was aborted, for some of this TaskManager's tasks. */
    void notify(CheckpointNotifications notifications, TaskExecutor.Reply reply) {
        mailbox.execute(() -> connection.inSession(notifications.getJmSessionId(), reply, () -> {
            for (CheckpointNotification notification : notifications.getNotificationsList()) {
                TaskSlotTable.Slot slot = slots.get(notification.getAttempt());
                if (slot != null && slot.task != null) {
                    if (notification.getCompleted() && slot.streaming != null) {
                        slot.streaming.completed(notification.getCheckpointId());
                    }
                    slot.task.notifyCheckpoint(notification);
                } else {
                    // Harmless: a later completion, or the restore, implies this one.
                    LOG.debug("Dropping a checkpoint notification for {}: the task is not running",
                            Rpc.describe(notification.getAttempt()));
                }
            }
            reply.ok();
        }));
    }

    /** Task thread: records the acknowledgement for a report to a later leader (see StreamingTaskFacts). */
    @Override
    public void acknowledging(AttemptId attempt, long checkpointId) {
        mailbox.execute(() -> {
            TaskSlotTable.Slot slot = slots.get(attempt);
            if (slot != null && slot.streaming != null) {
                slot.streaming.acknowledged(checkpointId);
            }
        });
    }

    /** Task thread: remembers the end-of-input report for a leader that adopts the task. */
    @Override
    public void inputEnded(TaskInputEnded report) {
        mailbox.execute(() -> {
            TaskSlotTable.Slot slot = slots.get(report.getAttempt());
            if (slot != null) {
                slot.inputEnded = report;
            }
        });
    }

    /**
     * Mailbox: a leader adopted the task in its slot; if its input had ended, that leader hears it
     * now (the report may have gone to the old leader, or to none).
     */
    void adopted(TaskSlotTable.Slot slot) {
        mailbox.assertRunningInMailbox();
        if (slot.inputEnded != null) {
            TaskInputEnded again = slot.inputEnded;
            send(again.getAttempt(), "the end of input", (client, session) -> client.reportInputEnded(
                    again.toBuilder().setJmSessionId(session).build())).whenComplete((ok, error) -> {
                        if (error != null) {
                            LOG.warn("Reporting the end of input of adopted task {} failed: {}",
                                    Rpc.describe(again.getAttempt()), Rpc.message(error));
                        }
                    });
        }
    }

    /**
     * Task thread: sends a task's call to the JobManager through the mailbox (which knows the
     * JobManager), fenced with the session that owns the task (deployed or adopted it); completes when it was answered.
     */
    @Override
    public CompletableFuture<Void> send(AttemptId attempt, String what,
            BiFunction<JobManagerClient, String, CompletableFuture<Ack>> call) {
        CompletableFuture<Void> sent = new CompletableFuture<>();
        mailbox.execute(() -> {
            TaskSlotTable.Slot slot = slots.get(attempt);
            JobManagerClient client = connection.client();
            if (client == null || slot == null) {
                sent.completeExceptionally(new IllegalStateException("cannot send " + what + " of task "
                        + Rpc.describe(attempt) + ": " + (client == null ? "no JobManager is known"
                                : "the task is no longer in a slot")));
                return;
            }
            call.apply(client, slot.deployment.getJmSessionId()).whenComplete((ack, error) -> {
                if (error == null) {
                    sent.complete(null);
                } else {
                    sent.completeExceptionally(error);
                }
            });
        });
        return sent;
    }
}
