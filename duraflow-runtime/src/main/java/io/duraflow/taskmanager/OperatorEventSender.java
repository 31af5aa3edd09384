package io.duraflow.taskmanager;

import io.duraflow.mailbox.Mailbox;
import io.duraflow.rpc.Rpc;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.OperatorEventFromTask;
import io.grpc.Status;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends the tasks' operator events (a source reader's split requests) to the JobManager's
 * coordinators, in order, retried across a leader change. A task thread only enqueues; everything
 * else runs in the TaskExecutor's mailbox. Its rules: see
 * docs/design/leader-change-adoption.md#operatoreventsender.
 */
final class OperatorEventSender {
    /** Logs as the TaskExecutor, whose lines these were, so that searches of the logs still find them. */
    private static final Logger LOG = LoggerFactory.getLogger(TaskExecutor.class);
    static final long FIRST_BACKOFF_MS = 50;
    static final long MAX_BACKOFF_MS = 1_000;
    /** A try not answered by then counts as failed; the calls' own deadlines are shorter, this bounds a call that hangs. */
    static final long ANSWER_TIMEOUT_MS = 15_000;

    /** One task's events the JobManager has not taken yet, in the order sent; the first is being sent. */
    private static final class Outbox {
        final ArrayDeque<OperatorEventFromTask> events = new ArrayDeque<>();
        /** On the mailbox's clock: after this, a failed try of the first event is not repeated. */
        long giveUpAtMs;
        long backoffMs;
        /** Counts the tries; an answer or timeout of an earlier try than the current one is stale. */
        long tries;
        /** Whether the current try waits for its answer (otherwise a retry is scheduled). */
        boolean inFlight;
        /** The current try's answer timeout, or the retry's backoff. */
        Mailbox.Cancellable timer;
    }

    private final Mailbox mailbox;
    private final TaskSlotTable slots;
    private final JobManagerConnection connection;
    /** {@code taskmanager.leader-loss.timeout}: how long a try may be repeated; 0 repeats none. */
    private final long leaderLossTimeoutMs;
    /** What happens to a task whose event cannot be sent. */
    private final BiConsumer<AttemptId, IllegalStateException> failTask;
    /** By attempt ({@link Rpc#describe(AttemptId)}), while it has events to send. */
    private final Map<String, Outbox> outboxes = new HashMap<>();

    OperatorEventSender(Mailbox mailbox, TaskSlotTable slots, JobManagerConnection connection, long leaderLossTimeoutMs,
            BiConsumer<AttemptId, IllegalStateException> failTask) {
        this.mailbox = mailbox;
        this.slots = slots;
        this.connection = connection;
        this.leaderLossTimeoutMs = leaderLossTimeoutMs;
        this.failTask = failTask;
    }

    /** Task thread: hands the event to the mailbox, which sends it after the task's earlier ones. */
    void send(OperatorEventFromTask event) {
        mailbox.execute(() -> enqueue(event));
    }

    private void enqueue(OperatorEventFromTask event) {
        mailbox.assertRunningInMailbox();
        TaskSlotTable.Slot slot = slots.get(event.getAttempt());
        if (slot != null && slot.failure != null) {
            return;  // an earlier event failed the task, which is stopping
        }
        String key = Rpc.describe(event.getAttempt());
        Outbox outbox = outboxes.computeIfAbsent(key, k -> new Outbox());
        outbox.events.add(event);
        if (outbox.events.size() == 1) {
            sendFirst(key, outbox);
        }
    }

    private void sendFirst(String key, Outbox outbox) {
        outbox.giveUpAtMs = mailbox.now() + leaderLossTimeoutMs;
        outbox.backoffMs = FIRST_BACKOFF_MS;
        tryFirst(key, outbox);
    }

    /** One try of the outbox's first event. */
    private void tryFirst(String key, Outbox outbox) {
        OperatorEventFromTask event = outbox.events.peek();
        long thisTry = ++outbox.tries;
        outbox.inFlight = true;
        TaskSlotTable.Slot slot = slots.get(event.getAttempt());
        JobManagerClient client = connection.client();
        if (client == null || slot == null) {
            answered(key, outbox, thisTry, client == null ? new NoLeaderException()
                    : new IllegalStateException("the task is no longer in a slot"));
            return;
        }
        OperatorEventFromTask request = event.toBuilder().setJmSessionId(slot.deployment.getJmSessionId()).build();
        if (event.getEvent().hasRequestSplit()) {
            slot.unansweredRequest = request;  // before any answer can come: see adopted
        }
        outbox.timer = mailbox.schedule(() -> answered(key, outbox, thisTry, new TimeoutException(
                "the JobManager did not answer within " + ANSWER_TIMEOUT_MS + " ms")), ANSWER_TIMEOUT_MS);
        client.sendOperatorEvent(request).whenComplete((ack, error) -> mailbox.execute(() -> {
            if (error != null && slot.unansweredRequest == request) {
                slot.unansweredRequest = null;  // it is sent again, or the task fails
            }
            answered(key, outbox, thisTry, error);
        }));
    }

    /** The outcome of try {@code thisTry}: null if the JobManager took the event, else why not. */
    private void answered(String key, Outbox outbox, long thisTry, Throwable failure) {
        mailbox.assertRunningInMailbox();
        if (outboxes.get(key) != outbox || outbox.tries != thisTry || !outbox.inFlight) {
            return;  // a try that timed out answers late, or the task's events were given up
        }
        outbox.inFlight = false;
        if (outbox.timer != null) {
            outbox.timer.cancel();
            outbox.timer = null;
        }
        if (failure == null) {
            outbox.events.poll();
            if (outbox.events.isEmpty()) {
                outboxes.remove(key);
            } else {
                sendFirst(key, outbox);
            }
            return;
        }
        AttemptId attempt = outbox.events.peek().getAttempt();
        boolean waitForLeader = leaderLossTimeoutMs > 0 && mailbox.now() < outbox.giveUpAtMs
                && isLeaderGap(failure) && stillInSlot(attempt);
        if (!waitForLeader) {
            outboxes.remove(key);
            failTask.accept(attempt, new IllegalStateException("cannot send an operator event to the JobManager: "
                    + Rpc.message(failure), failure));
            return;
        }
        outbox.timer = mailbox.schedule(() -> {
            outbox.timer = null;
            if (outboxes.get(key) == outbox) {
                tryFirst(key, outbox);
            }
        }, outbox.backoffMs);
        outbox.backoffMs = Math.min(MAX_BACKOFF_MS, outbox.backoffMs * 2);
    }

    /**
     * Whether the attempt may wait for a leader: it still has its slot (it was not cancelled).
     * Asked after a failure a leader change explains; a killed leader's calls fail before this
     * TaskManager notices the loss, so a kept task is not yet known to be kept then.
     */
    private boolean stillInSlot(AttemptId attempt) {
        return slots.get(attempt) != null;
    }

    /** No JobManager is known to this TaskManager (it lost its leader and has no new one yet). */
    private static final class NoLeaderException extends IllegalStateException {
        NoLeaderException() {
            super("no JobManager is known");
        }
    }

    /** Failures a leader change explains: no leader, an unreachable one, or one refusing the old session. */
    private static boolean isLeaderGap(Throwable failure) {
        if (failure instanceof NoLeaderException || failure instanceof TimeoutException) {
            return true;
        }
        Status.Code code = Status.fromThrowable(failure).getCode();
        return code == Status.Code.UNAVAILABLE || code == Status.Code.PERMISSION_DENIED
                || code == Status.Code.DEADLINE_EXCEEDED;
    }

    /**
     * A leader adopted the task in {@code slot}: if it is a reader whose split request the old
     * leader took but never answered, it asks the new leader again (a request still being retried
     * reaches the new leader on its own; the enumerator may then assign one split more, which the
     * reader reads like any other).
     */
    void adopted(TaskSlotTable.Slot slot, String session) {
        mailbox.assertRunningInMailbox();
        OperatorEventFromTask request = slot.unansweredRequest;
        JobManagerClient client = connection.client();
        if (request == null || client == null) {
            return;
        }
        client.sendOperatorEvent(request.toBuilder().setJmSessionId(session).build()).whenComplete((ack, error) -> {
            if (error != null) {
                LOG.warn("Adopted task {} could not ask the new leader for a split again: {}",
                        Rpc.describe(request.getAttempt()), Rpc.message(error));
            }
        });
    }
}
