package io.duraflow.taskmanager;

import static io.duraflow.taskmanager.TaskExecutorHarness.FIRST;
import static io.duraflow.taskmanager.TaskExecutorHarness.KEEPS_TASKS;
import static io.duraflow.taskmanager.TaskExecutorHarness.LEADER_LOSS_TIMEOUT_MS;
import static io.duraflow.taskmanager.TaskExecutorHarness.SECOND;
import static io.duraflow.taskmanager.TaskExecutorHarness.attempt;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.duraflow.ha.LeaderInfo;
import io.duraflow.rpc.proto.Ack;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.AcknowledgeCheckpointRequest;
import io.duraflow.rpc.proto.CheckpointNotification;
import io.duraflow.rpc.proto.CheckpointNotifications;
import io.duraflow.rpc.proto.TriggerCheckpointRequests;
import io.duraflow.rpc.proto.DeclineCheckpointRequest;
import io.duraflow.rpc.proto.OperatorEvent;
import io.duraflow.rpc.proto.OperatorEventFromTask;
import io.duraflow.rpc.proto.RequestSplit;
import io.duraflow.rpc.proto.TaskInputEnded;
import io.duraflow.rpc.proto.TaskState;
import io.duraflow.rpc.proto.TriggerCheckpointRequest;
import io.duraflow.taskmanager.TaskExecutorHarness.Answer;
import io.duraflow.taskmanager.TaskExecutorHarness.FakeTask;
import io.grpc.Status;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the TaskExecutor passes between its tasks and the JobManager: checkpoint requests and the
 * tasks' checkpoint calls, and operator events, which go out one at a time in order, carry the
 * session that deployed the task, are sent again across a leader change and fail the task when
 * refused or not taken in time. Driven step by step through {@link TaskExecutorHarness}.
 */
class TaskExecutorTaskMessagesTest {
    @TempDir
    Path dir;

    private TaskExecutorHarness harness;

    @BeforeEach
    void create(TestInfo test) throws Exception {
        harness = new TaskExecutorHarness(dir, test.getTags().contains(KEEPS_TASKS));
    }

    @AfterEach
    void close() {
        harness.close();
    }

    private static TriggerCheckpointRequests trigger(LeaderInfo session, AttemptId attempt) {
        return TriggerCheckpointRequests.newBuilder().setJmSessionId(session.sessionId())
                .addTriggers(TriggerCheckpointRequest.newBuilder().setAttempt(attempt).setCheckpointId(1)).build();
    }

    @Test
    void checkpointRequestsOfItsSessionReachTheTaskAndTheTasksCheckpointCallsCarryTheSessionThatDeployedIt() {
        harness.register(FIRST);
        harness.deploy(FIRST, 0, 0);
        harness.mailbox.runDue();
        FakeTask task = harness.tasks.get("0#0");

        Answer otherSession = new Answer();
        harness.executor.triggerCheckpoint(trigger(SECOND, attempt(0, 0)), otherSession);
        Answer triggered = new Answer();
        harness.executor.triggerCheckpoint(trigger(FIRST, attempt(0, 0)), triggered);
        Answer notRunning = new Answer();
        harness.executor.triggerCheckpoint(trigger(FIRST, attempt(1, 0)), notRunning);
        Answer notified = new Answer();
        harness.executor.notifyCheckpoint(CheckpointNotifications.newBuilder().setJmSessionId(FIRST.sessionId())
                .addNotifications(CheckpointNotification.newBuilder().setAttempt(attempt(0, 0)).setCheckpointId(1)
                        .setCompleted(true))
                .build(), notified);
        harness.mailbox.runDue();

        assertThat(otherSession.refused.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
        assertThat(triggered.ok).isTrue();
        assertThat(notRunning.refused.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND);
        assertThat(notified.ok).isTrue();
        assertThat(task.triggers).singleElement().satisfies(t -> assertThat(t.getCheckpointId()).isEqualTo(1));
        assertThat(task.notifications).singleElement().satisfies(n -> assertThat(n.getCompleted()).isTrue());

        // Whatever session the task names, its calls go with the one that deployed it.
        CompletableFuture<Void> acked = harness.executor.streaming().acknowledgeCheckpoint(
                AcknowledgeCheckpointRequest.newBuilder().setJmSessionId("forged")
                        .setAttempt(attempt(0, 0)).setCheckpointId(1).build());
        CompletableFuture<Void> ended = harness.executor.streaming().reportInputEnded(
                TaskInputEnded.newBuilder().setAttempt(attempt(0, 0)).build());
        CompletableFuture<Void> declinedByAGoneTask = harness.executor.streaming().declineCheckpoint(
                DeclineCheckpointRequest.newBuilder().setAttempt(attempt(1, 0))
                        .setCheckpointId(1).build());
        harness.mailbox.runDue();
        assertThat(FakeJobManager.last(harness.jobManagers.acknowledgements).request().getJmSessionId())
                .isEqualTo(FIRST.sessionId());
        assertThat(FakeJobManager.last(harness.jobManagers.inputEnds).request().getJmSessionId())
                .isEqualTo(FIRST.sessionId());
        assertThat(harness.jobManagers.declines).isEmpty();
        assertThat(declinedByAGoneTask).isCompletedExceptionally();
        assertThat(acked).isNotDone();
        FakeJobManager.last(harness.jobManagers.acknowledgements).answer().complete(Ack.getDefaultInstance());
        FakeJobManager.last(harness.jobManagers.inputEnds).answer().complete(Ack.getDefaultInstance());
        assertThat(acked).isCompleted();
        assertThat(ended).isCompleted();
    }

    @Test
    void operatorEventsCarryTheSessionThatDeployedTheTask() {
        harness.register(FIRST);
        harness.deploy(FIRST, 0, 0);
        harness.mailbox.runDue();

        harness.executor.sendOperatorEvent(splitRequest().toBuilder().setJmSessionId("forged").build());
        harness.mailbox.runDue();

        assertThat(FakeJobManager.last(harness.jobManagers.operatorEvents).request().getJmSessionId())
                .isEqualTo(FIRST.sessionId());
    }

    @Test
    void aTaskSendingOperatorEventsDoesNotWaitAndTheyGoOutOneAtATimeInTheOrderSent() {
        harness.register(FIRST);
        harness.deploy(FIRST, 0, 0);
        harness.mailbox.runDue();

        // The test's thread plays the task's: it returns at once, before anything was sent.
        harness.executor.sendOperatorEvent(customEvent("first"));
        harness.executor.sendOperatorEvent(customEvent("second"));
        assertThat(harness.jobManagers.operatorEvents).isEmpty();
        harness.mailbox.runDue();
        assertThat(sentEvents()).as("the second waits until the first was taken").containsExactly("first");

        FakeJobManager.last(harness.jobManagers.operatorEvents).answer().complete(Ack.getDefaultInstance());
        harness.mailbox.runDue();
        assertThat(sentEvents()).containsExactly("first", "second");
    }

    @Test
    @Tag(KEEPS_TASKS)
    void anOperatorEventALeaderChangeHoldsUpIsSentAgainOnTheMailboxsTimersUntilTheAdoptingLeaderTakesIt() {
        harness.register(FIRST);
        harness.deploy(FIRST, 0, 0);
        harness.mailbox.runDue();
        harness.executor.sendOperatorEvent(splitRequest());
        harness.mailbox.runDue();
        assertThat(harness.jobManagers.operatorEvents).hasSize(1);

        // A try that gets no answer counts as failed once the answer timeout passed; its late answer changes nothing.
        FakeJobManager.Call<OperatorEventFromTask, Ack> unanswered =
                FakeJobManager.last(harness.jobManagers.operatorEvents);
        harness.mailbox.advance(OperatorEventSender.ANSWER_TIMEOUT_MS);
        assertThat(harness.jobManagers.operatorEvents).hasSize(1);
        harness.mailbox.advance(OperatorEventSender.FIRST_BACKOFF_MS);
        assertThat(harness.jobManagers.operatorEvents).hasSize(2);
        unanswered.answer().completeExceptionally(Status.UNAVAILABLE.asRuntimeException());
        harness.mailbox.runDue();

        // The leader is killed: its call fails, the TaskManager keeps the task and registers at the next.
        FakeJobManager.last(harness.jobManagers.operatorEvents).answer().completeExceptionally(
                Status.UNAVAILABLE.withDescription("io exception").asRuntimeException());
        harness.mailbox.runDue();
        harness.leaders.listener.accept(SECOND);
        harness.mailbox.runDue();
        harness.mailbox.advance(2 * OperatorEventSender.FIRST_BACKOFF_MS - 1);
        assertThat(harness.jobManagers.operatorEvents).as("waits out the doubled backoff").hasSize(2);
        harness.mailbox.advance(1);
        assertThat(FakeJobManager.last(harness.jobManagers.operatorEvents)).satisfies(call -> {
            assertThat(call.address()).isEqualTo(SECOND.address());
            assertThat(call.request().getJmSessionId()).as("the task's own session").isEqualTo(FIRST.sessionId());
        });
        // The new leader refuses the old session until it adopted the task.
        FakeJobManager.last(harness.jobManagers.operatorEvents).answer().completeExceptionally(
                Status.PERMISSION_DENIED.asRuntimeException());
        harness.mailbox.runDue();
        harness.answerRegistration(SECOND);
        harness.executor.adopt(SECOND.sessionId(), List.of(attempt(0, 0)), new Answer());
        harness.mailbox.runDue();
        assertThat(harness.jobManagers.operatorEvents).as("nothing unanswered to ask again").hasSize(3);

        harness.mailbox.advance(4 * OperatorEventSender.FIRST_BACKOFF_MS);
        assertThat(FakeJobManager.last(harness.jobManagers.operatorEvents).request().getJmSessionId())
                .isEqualTo(SECOND.sessionId());
        FakeJobManager.last(harness.jobManagers.operatorEvents).answer().complete(Ack.getDefaultInstance());
        harness.mailbox.advance(LEADER_LOSS_TIMEOUT_MS);
        assertThat(harness.jobManagers.operatorEvents).as("taken: not sent again").hasSize(4);
        assertThat(harness.tasks.get("0#0").cancelled).isFalse();
    }

    @Test
    @Tag(KEEPS_TASKS)
    void anOperatorEventNotTakenWithinTheLeaderLossTimeoutFailsTheTaskAndItsLaterEventsAreDropped() {
        harness.register(FIRST);
        harness.deploy(FIRST, 0, 0);
        harness.mailbox.runDue();
        harness.executor.sendOperatorEvent(splitRequest());
        harness.mailbox.runDue();

        long backoffMs = OperatorEventSender.FIRST_BACKOFF_MS;
        long waitedMs = 0;
        while (waitedMs < LEADER_LOSS_TIMEOUT_MS) {
            FakeJobManager.last(harness.jobManagers.operatorEvents).answer().completeExceptionally(
                    Status.UNAVAILABLE.withDescription("io exception").asRuntimeException());
            harness.mailbox.runDue();
            assertThat(harness.tasks.get("0#0").cancelled).isFalse();
            int tries = harness.jobManagers.operatorEvents.size();
            harness.mailbox.advance(backoffMs);
            assertThat(harness.jobManagers.operatorEvents).hasSize(tries + 1);
            waitedMs += backoffMs;
            backoffMs = Math.min(OperatorEventSender.MAX_BACKOFF_MS, 2 * backoffMs);
        }
        int tries = harness.jobManagers.operatorEvents.size();
        FakeJobManager.last(harness.jobManagers.operatorEvents).answer().completeExceptionally(
                Status.UNAVAILABLE.withDescription("io exception").asRuntimeException());
        harness.mailbox.runDue();

        assertThat(harness.tasks.get("0#0").cancelled).as("stopped, to fail").isTrue();
        harness.executor.sendOperatorEvent(customEvent("after the failure"));
        harness.mailbox.advance(OperatorEventSender.MAX_BACKOFF_MS);
        assertThat(harness.jobManagers.operatorEvents).hasSize(tries);
        harness.endTask(attempt(0, 0), TaskState.CANCELED);
        assertThat(harness.reportsOf(TaskState.CANCELED)).isEmpty();
        assertThat(harness.reportsOf(TaskState.FAILED)).singleElement().satisfies(report -> {
            assertThat(report.getFailure()).isEqualTo(
                    "IllegalStateException: cannot send an operator event to the JobManager: io exception");
            assertThat(report.getRecordsOut()).isEqualTo(42);
        });
    }

    @Test
    void anOperatorEventTheJobManagerRefusesFailsTheTaskAtOnce() {
        harness.register(FIRST);
        harness.deploy(FIRST, 0, 0);
        harness.mailbox.runDue();
        harness.executor.sendOperatorEvent(splitRequest());
        harness.mailbox.runDue();

        FakeJobManager.last(harness.jobManagers.operatorEvents).answer().completeExceptionally(
                Status.FAILED_PRECONDITION.withDescription("no coordinator for node 1").asRuntimeException());
        harness.mailbox.runDue();

        assertThat(harness.tasks.get("0#0").cancelled).isTrue();
        harness.endTask(attempt(0, 0), TaskState.CANCELED);
        assertThat(harness.reportsOf(TaskState.FAILED)).singleElement()
                .satisfies(report -> assertThat(report.getFailure())
                        .isEqualTo("IllegalStateException: cannot send an operator event to the JobManager:"
                                + " no coordinator for node 1"));
    }

    @Test
    void aTaskCancelledWhileItsOperatorEventIsOnItsWayEndsCancelledWhenTheEventFails() {
        harness.register(FIRST);
        harness.deploy(FIRST, 0, 0);
        harness.mailbox.runDue();
        harness.executor.sendOperatorEvent(splitRequest());
        harness.mailbox.runDue();

        harness.executor.cancel(FIRST.sessionId(), attempt(0, 0), new Answer());
        harness.mailbox.runDue();
        FakeJobManager.last(harness.jobManagers.operatorEvents).answer().completeExceptionally(
                Status.FAILED_PRECONDITION.asRuntimeException());
        harness.mailbox.runDue();
        harness.endTask(attempt(0, 0), TaskState.CANCELED);

        assertThat(harness.reportsOf(TaskState.CANCELED)).hasSize(1);
        assertThat(harness.reportsOf(TaskState.FAILED)).isEmpty();
    }

    private static OperatorEventFromTask splitRequest() {
        return OperatorEventFromTask.newBuilder().setAttempt(attempt(0, 0)).setNodeId(1)
                .setEvent(OperatorEvent.newBuilder().setRequestSplit(RequestSplit.getDefaultInstance())).build();
    }

    private static OperatorEventFromTask customEvent(String payload) {
        return OperatorEventFromTask.newBuilder().setAttempt(attempt(0, 0)).setNodeId(1).setEvent(OperatorEvent
                .newBuilder().setCustom(ByteString.copyFromUtf8(payload))).build();
    }

    /** The payloads of the custom operator events sent to JobManagers, in the order sent. */
    private List<String> sentEvents() {
        return harness.jobManagers.operatorEvents.stream()
                .map(call -> call.request().getEvent().getCustom().toStringUtf8()).toList();
    }
}
