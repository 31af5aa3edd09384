package io.duraflow.taskmanager;

import io.duraflow.mailbox.Mailbox;

import io.duraflow.rpc.Rpc;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.TaskAttemptState;
import io.duraflow.rpc.proto.TaskDeployment;
import io.duraflow.rpc.proto.TaskManagerHeartbeat;
import io.duraflow.rpc.proto.TaskState;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The TaskManager's slots and the tasks in them, by attempt: a task takes its place when its
 * deployment is accepted, holds the deployment while its job's plan is built, then runs, and
 * leaves when it ended or could not start. Deployments that name the same slot
 * ({@code TaskDeployment.slot}: a streaming job's subtasks of one slot sharing group and index)
 * share it, one without a slot name has a slot of its own; at most {@code capacity} slots are
 * taken. What runs in them, and what their end means for the JobManager, is the
 * {@link TaskExecutor}'s business.
 *
 * <p>Mailbox only, like the executor that owns it.
 */
final class TaskSlotTable {

    /** A slot's task: waiting for its job's plan ({@code task == null}), then running. */
    static final class Slot {
        /** As deployed; re-stamped with the adopting session when a new leader adopts the task. */
        TaskDeployment deployment;
        TaskExecutorServices.RunningTask task;
        /** A source reader's splits, as its enumerator sent them, in order (a kept task reports them). */
        final java.util.List<com.google.protobuf.ByteString> splitsReceived = new java.util.ArrayList<>();
        /**
         * Operator events are numbered per attempt by the leader that sends them, from 1: a leader
         * that adopts the task numbers from 1 again, so its numbers are shifted by what the task
         * received before ({@code sequenceBase}, set when this TaskManager registers in the new
         * leader's session, see {@link #numberFrom}); {@code lastSequence} is the highest delivered.
         */
        long sequenceBase;
        long lastSequence;
        /** A streaming task's checkpoints and splits, for a report to a new leader; null for a batch task. */
        final StreamingTaskFacts streaming;
        /** A streaming task's end-of-input report once sent: a leader that adopts the task hears it again. */
        io.duraflow.rpc.proto.TaskInputEnded inputEnded;
        /** A source reader's split request a leader took and has not answered (no splits, no "no more") since. */
        io.duraflow.rpc.proto.OperatorEventFromTask unansweredRequest;
        /** Someone asked the running task to stop: the JobManager, a leader loss or its timeout, or shutdown. */
        boolean cancelRequested;
        /**
         * Why this TaskManager stopped the running task itself (an operator event of it could not be
         * sent, see {@link OperatorEventSender}), or null; its end is then reported as this failure.
         */
        IllegalStateException failure;

        Slot(TaskDeployment deployment) {
            this.deployment = deployment;
            this.streaming = deployment.getRunId().isEmpty() ? null : new StreamingTaskFacts(
                    deployment.hasRestore() ? deployment.getRestore().getCheckpointId() : 0);
        }

        /** The session whose numbering {@code sequenceBase} shifts. */
        private String sequenceSession;

        /**
         * This TaskManager registered in {@code session}: a leader of another session than the one
         * the numbering follows now numbers from 1 again, after what the task received so far.
         */
        void numberFrom(String session) {
            if (sequenceSession == null) {
                sequenceSession = deployment.getJmSessionId();
            }
            if (!session.equals(sequenceSession)) {
                sequenceSession = session;
                sequenceBase = lastSequence;
            }
        }

        /** Stops the running task on request; it ends CANCELED, even if it was {@linkplain #failTask failed} before. */
        void cancelTask() {
            cancelRequested = true;
            task.cancel();
        }

        /**
         * Stops the running task because it failed here, unless it was cancelled or failed already
         * (a request to cancel wins, as it does within the task itself).
         *
         * @return whether this stopped the task
         */
        boolean failTask(IllegalStateException error) {
            if (cancelRequested || failure != null) {
                return false;
            }
            failure = error;
            task.cancel();
            return true;
        }

        /** The sequence number a leader gave an operator event or trigger, as this task counts it (0: unordered). */
        long absolute(long sequence) {
            return sequence == 0 ? 0 : sequenceBase + sequence;
        }
    }

    private final int capacity;
    private final Mailbox mailbox;
    /** By attempt ({@link Rpc#describe(AttemptId)}): one per slot. */
    private final Map<String, Slot> byAttempt = new LinkedHashMap<>();

    TaskSlotTable(int capacity, Mailbox mailbox) {
        this.capacity = capacity;
        this.mailbox = mailbox;
    }

    int capacity() {
        return capacity;
    }

    /** Whether the deployment finds no place: it would need a slot of its own, and all are taken. */
    boolean isFull(TaskDeployment deployment) {
        return used() >= capacity && (deployment.getSlot().isEmpty() || !slotNames().contains(deployment.getSlot()));
    }

    /** The attempt's slot, or null if it holds none. */
    Slot get(AttemptId attempt) {
        return byAttempt.get(Rpc.describe(attempt));
    }

    /** Places the deployment in a slot; the caller checked that it is not {@link #isFull} and the attempt holds none. */
    Slot take(TaskDeployment deployment) {
        mailbox.assertRunningInMailbox();
        Slot slot = new Slot(deployment);
        byAttempt.put(Rpc.describe(deployment.getAttempt()), slot);
        return slot;
    }

    /**
     * Frees the attempt's slot, if it holds one.
     *
     * @return whether this freed the last taken slot
     */
    boolean free(AttemptId attempt) {
        mailbox.assertRunningInMailbox();
        return byAttempt.remove(Rpc.describe(attempt)) != null && byAttempt.isEmpty();
    }

    /**
     * Cancels every running task; with {@code freeWaiting}, also frees the slots whose plan is
     * still being built (they never ran, so nobody reports their end). A cancelled task keeps its
     * slot until it reports that it ended.
     */
    void cancelAll(boolean freeWaiting) {
        mailbox.assertRunningInMailbox();
        for (Iterator<Slot> it = byAttempt.values().iterator(); it.hasNext(); ) {
            Slot slot = it.next();
            if (slot.task != null) {
                slot.cancelTask();
            } else if (freeWaiting) {
                it.remove();
            }
        }
    }

    /** Every taken slot, in the order taken. */
    java.util.List<Slot> all() {
        mailbox.assertRunningInMailbox();
        return java.util.List.copyOf(byAttempt.values());
    }

    /** Slots taken: one per slot name in use, and one for each task without a slot name. */
    int used() {
        int unnamed = 0;
        for (Slot slot : byAttempt.values()) {
            if (slot.deployment.getSlot().isEmpty()) {
                unnamed++;
            }
        }
        return unnamed + slotNames().size();
    }

    /** Tasks in the slots. */
    int tasks() {
        return byAttempt.size();
    }

    private java.util.Set<String> slotNames() {
        java.util.Set<String> names = new java.util.HashSet<>();
        for (Slot slot : byAttempt.values()) {
            if (!slot.deployment.getSlot().isEmpty()) {
                names.add(slot.deployment.getSlot());
            }
        }
        return names;
    }

    /** The running tasks' last counter samples, for a metrics scrape. */
    java.util.List<io.duraflow.taskmanager.task.TaskMetricsView> metricsViews() {
        mailbox.assertRunningInMailbox();
        java.util.List<io.duraflow.taskmanager.task.TaskMetricsView> views = new java.util.ArrayList<>();
        for (Slot slot : byAttempt.values()) {
            var view = slot.task == null ? null : slot.task.metricsView();
            if (view != null) {
                views.add(view);
            }
        }
        return views;
    }

    /**
     * Adds every slot's task to a heartbeat: RUNNING (with the task's last counter sample),
     * or no state yet while its plan is built.
     */
    void describe(TaskManagerHeartbeat.Builder heartbeat) {
        for (Slot slot : byAttempt.values()) {
            TaskAttemptState.Builder task = TaskAttemptState.newBuilder().setAttempt(slot.deployment.getAttempt())
                    .setState(slot.task == null ? TaskState.TASK_STATE_UNSPECIFIED : TaskState.RUNNING);
            var metrics = slot.task == null ? null : slot.task.sampleMetrics();
            if (metrics != null) {
                task.setMetrics(metrics);
            }
            heartbeat.addTasks(task);
        }
    }
}
