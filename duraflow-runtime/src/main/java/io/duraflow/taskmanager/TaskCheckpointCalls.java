package io.duraflow.taskmanager;

import io.duraflow.rpc.Rpc;
import io.duraflow.rpc.proto.Ack;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.CheckpointNotification;
import io.duraflow.rpc.proto.TriggerCheckpointRequest;
import io.grpc.Status;
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
final class TaskCheckpointCalls {
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

    /** gRPC thread: a source task (or one whose input ended) takes its part of a checkpoint. */
    void trigger(TriggerCheckpointRequest request, TaskExecutor.Reply reply) {
        mailbox.execute(() -> connection.inSession(request.getJmSessionId(), reply, () -> {
            TaskSlotTable.Slot slot = slots.get(request.getAttempt());
            if (slot == null || slot.task == null) {
                reply.refuse(Status.NOT_FOUND.withDescription("task " + Rpc.describe(request.getAttempt())
                        + " is not running on " + tmId + "; the checkpoint cannot be triggered there")
                        .asRuntimeException());
                return;
            }
            slot.task.triggerCheckpoint(request);
            reply.ok();
        }));
    }

    /** gRPC thread: a checkpoint completed (sinks commit) or was aborted. */
    void notify(CheckpointNotification notification, TaskExecutor.Reply reply) {
        mailbox.execute(() -> connection.inSession(notification.getJmSessionId(), reply, () -> {
            TaskSlotTable.Slot slot = slots.get(notification.getAttempt());
            if (slot != null && slot.task != null) {
                slot.task.notifyCheckpoint(notification);
            } else {
                // Harmless: a later completion, or the restore, implies this one.
                LOG.debug("Dropping a checkpoint notification for {}: the task is not running",
                        Rpc.describe(notification.getAttempt()));
            }
            reply.ok();
        }));
    }

    /**
     * Task thread: sends a task's call to the JobManager through the mailbox (which knows the
     * JobManager), fenced with the session that deployed the task; completes when it was answered.
     */
    CompletableFuture<Void> callForTask(AttemptId attempt, String what,
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
