package io.duraflow.taskmanager;

import static io.duraflow.taskmanager.TaskExecutorHarness.FIRST;
import static io.duraflow.taskmanager.TaskExecutorHarness.HEARTBEAT_MS;
import static io.duraflow.taskmanager.TaskExecutorHarness.HEARTBEAT_TIMEOUT_MS;
import static io.duraflow.taskmanager.TaskExecutorHarness.KEEPS_TASKS;
import static io.duraflow.taskmanager.TaskExecutorHarness.LEADER_LOSS_TIMEOUT_MS;
import static io.duraflow.taskmanager.TaskExecutorHarness.SECOND;
import static io.duraflow.taskmanager.TaskExecutorHarness.attempt;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.duraflow.ha.LeaderInfo;
import io.duraflow.rpc.proto.AddSplits;
import io.duraflow.rpc.proto.JobManagerHeartbeat;
import io.duraflow.rpc.proto.NoMoreSplits;
import io.duraflow.rpc.proto.OperatorEvent;
import io.duraflow.rpc.proto.OperatorEventToTask;
import io.duraflow.rpc.proto.TaskState;
import io.duraflow.taskmanager.TaskExecutorHarness.Answer;
import io.grpc.Status;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;

/**
 * The TaskExecutor when the leader changes or is lost: its tasks are cancelled, or kept for the next
 * leader (reported at the registration, adopted, cancelled after the leader-loss timeout); a new
 * leadership of the same JobManager is followed once; missed heartbeats lose the JobManager. Driven
 * step by step through {@link TaskExecutorHarness}.
 */
class TaskExecutorLeaderChangeTest {
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

    @Test
    void aNewLeaderCancelsTheTasksAndGetsARegistrationWhileTheOldSessionIsRefused() {
        harness.register(FIRST);
        harness.deploy(FIRST, 0, 0);
        harness.mailbox.runDue();

        harness.leaders.listener.accept(SECOND);
        harness.mailbox.runDue();

        assertThat(harness.tasks.get("0#0").cancelled).isTrue();
        assertThat(harness.jobManagers.closed).containsExactly(FIRST.address());
        assertThat(harness.jobManagers.registrations).as("not while the cancelled task holds its slot").hasSize(1);

        harness.endTask(FIRST.sessionId(), attempt(0, 0), TaskState.CANCELED);

        assertThat(FakeJobManager.last(harness.jobManagers.registrations).address()).isEqualTo(SECOND.address());
        harness.answerRegistration(SECOND);
        Answer stale = harness.deploy(FIRST, 1, 0);
        harness.mailbox.runDue();

        assertThat(stale.refused.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
        assertThat(harness.heartbeat().getTasksList()).as("the old leader's report went with it").isEmpty();
    }

    @Test
    @Tag(KEEPS_TASKS)
    void aKeptTaskRunsOnIsReportedAtTheRegistrationAndOnceAdoptedReportsInTheNewSession() {
        harness.register(FIRST);
        harness.deploy(FIRST, 0, 0);
        harness.mailbox.runDue();
        harness.executor.deliver(OperatorEventToTask.newBuilder().setJmSessionId(FIRST.sessionId())
                .setAttempt(attempt(0, 0)).setSequence(1).setEvent(OperatorEvent.newBuilder()
                        .setAddSplits(AddSplits.newBuilder()
                                .addSplits(ByteString.copyFromUtf8("split-0")))).build(), new Answer());
        harness.mailbox.runDue();

        harness.leaders.listener.accept(SECOND);
        harness.mailbox.runDue();

        assertThat(harness.tasks.get("0#0").cancelled).as("kept for the next leader").isFalse();
        assertThat(FakeJobManager.last(harness.jobManagers.registrations).request().getHeldTasksList())
                .as("registered at once, with the kept task").singleElement().satisfies(held -> {
                    assertThat(held.getAttempt()).isEqualTo(attempt(0, 0));
                    assertThat(held.getState()).isEqualTo(TaskState.RUNNING);
                    assertThat(held.getDeployedBySession()).isEqualTo(FIRST.sessionId());
                    assertThat(held.getSplitsList()).extracting(ByteString::toStringUtf8)
                            .containsExactly("split-0");
                });
        harness.answerRegistration(SECOND);

        Answer adopted = new Answer();
        harness.executor.adopt(SECOND.sessionId(), List.of(attempt(0, 0)), adopted);
        harness.mailbox.runDue();
        assertThat(adopted.ok).isTrue();
        // The new leader numbers its events to the task from 1 again: they follow the old leader's.
        harness.executor.deliver(OperatorEventToTask.newBuilder().setJmSessionId(SECOND.sessionId())
                .setAttempt(attempt(0, 0)).setSequence(1).setEvent(OperatorEvent.newBuilder()
                        .setNoMoreSplits(NoMoreSplits.getDefaultInstance())).build(), new Answer());
        harness.mailbox.runDue();
        assertThat(harness.tasks.get("0#0").sequences).containsExactly(1L, 2L);
        harness.endTask(FIRST.sessionId(), attempt(0, 0), TaskState.FINISHED);

        assertThat(harness.reportsOf(TaskState.FINISHED)).singleElement()
                .satisfies(report -> assertThat(report.getJmSessionId()).isEqualTo(SECOND.sessionId()));
        harness.mailbox.advance(LEADER_LOSS_TIMEOUT_MS);
        assertThat(harness.tasks.get("0#0").cancelled).as("no timeout for an adopted task").isFalse();
    }

    private void deliverEvent(LeaderInfo leader, long sequence, OperatorEvent.Builder event) {
        harness.executor.deliver(OperatorEventToTask.newBuilder().setJmSessionId(leader.sessionId())
                .setAttempt(attempt(0, 0)).setSequence(sequence).setEvent(event).build(), new Answer());
        harness.mailbox.runDue();
    }

    /**
     * A new leader's enumerator may send to a kept task as soon as the leader decided to adopt
     * it, before the TaskManager handled the adoption: those events follow the old leader's too.
     * (They were numbered from 0 again, taken for duplicates and dropped, and the task then waited
     * forever for the numbers that went missing, with every later trigger.)
     */
    @Test
    @Tag(KEEPS_TASKS)
    void eventsOfTheNewLeaderThatComeBeforeItsAdoptionFollowTheOldLeaders() {
        harness.register(FIRST);
        harness.deploy(FIRST, 0, 0);
        harness.mailbox.runDue();
        deliverEvent(FIRST, 1, OperatorEvent.newBuilder().setAddSplits(
                AddSplits.newBuilder().addSplits(ByteString.copyFromUtf8("s"))));
        deliverEvent(FIRST, 2, OperatorEvent.newBuilder().setCustom(
                ByteString.copyFromUtf8("old")));

        harness.leaders.listener.accept(SECOND);
        harness.mailbox.runDue();
        harness.answerRegistration(SECOND);
        deliverEvent(SECOND, 1, OperatorEvent.newBuilder().setCustom(
                ByteString.copyFromUtf8("new, before the adoption")));
        harness.executor.adopt(SECOND.sessionId(), List.of(attempt(0, 0)), new Answer());
        harness.mailbox.runDue();
        deliverEvent(SECOND, 2, OperatorEvent.newBuilder().setCustom(
                ByteString.copyFromUtf8("new, after it")));

        assertThat(harness.tasks.get("0#0").sequences).containsExactly(1L, 2L, 3L, 4L);
    }

    @Test
    @Tag(KEEPS_TASKS)
    void aKeptTaskThatEndsBeforeAnyLeaderDecidedIsReportedFinishedAndItsReportWaitsForTheAdoption() {
        harness.register(FIRST);
        harness.deploy(FIRST, 0, 0);
        harness.mailbox.runDue();
        loseTheJobManagerByMissedHeartbeats();
        harness.endTask(FIRST.sessionId(), attempt(0, 0), TaskState.FINISHED);

        harness.leaders.listener.accept(SECOND);
        harness.mailbox.runDue();
        var registration = FakeJobManager.last(harness.jobManagers.registrations).request();
        assertThat(registration.getEarlierFinishedReportsList()).as("not an earlier finish: a kept task").isEmpty();
        assertThat(registration.getHeldTasksList()).singleElement().satisfies(held -> {
            assertThat(held.getState()).isEqualTo(TaskState.FINISHED);
            assertThat(held.getRecordsOut()).isEqualTo(42);
        });
        harness.answerRegistration(SECOND);
        assertThat(harness.reportsOf(TaskState.FINISHED)).as("waits for the leader's decision").isEmpty();

        harness.executor.adopt(SECOND.sessionId(), List.of(attempt(0, 0)), new Answer());
        harness.mailbox.runDue();

        assertThat(harness.reportsOf(TaskState.FINISHED)).singleElement()
                .satisfies(report -> assertThat(report.getJmSessionId()).isEqualTo(SECOND.sessionId()));
    }

    @Test
    @Tag(KEEPS_TASKS)
    void keptTasksNoLeaderAdoptedAreCancelledAfterTheLeaderLossTimeoutAndOnesItCancelsReportNothing() {
        harness.register(FIRST);
        harness.deploy(FIRST, 0, 0);
        harness.deploy(FIRST, 1, 0);
        harness.mailbox.runDue();
        loseTheJobManagerByMissedHeartbeats();
        harness.leaders.listener.accept(SECOND);
        harness.mailbox.runDue();
        harness.answerRegistration(SECOND);

        harness.executor.cancel(SECOND.sessionId(), attempt(1, 0), new Answer());
        harness.mailbox.runDue();
        assertThat(harness.tasks.get("1#0").cancelled).as("the new leader runs it again elsewhere").isTrue();
        harness.endTask(FIRST.sessionId(), attempt(1, 0), TaskState.CANCELED);
        assertThat(harness.reportsOf(TaskState.CANCELED)).isEmpty();

        harness.mailbox.advance(LEADER_LOSS_TIMEOUT_MS);
        assertThat(harness.tasks.get("0#0").cancelled).as("not adopted within the timeout").isTrue();
    }

    @Test
    void aNewLeadershipOfTheSameJobManagerIsFollowedBeforeItsAnnouncementArrives() {
        // Regression: ZooKeeper was down, the JobManager lost leadership and won it again in a new
        // session; this TaskManager registered again (the JobManager no longer knew it) before
        // the new announcement reached it. It used to refuse the answer and then every
        // deployment of the new session with PERMISSION_DENIED.
        int registrations = registeredThenForgotten();
        LeaderInfo again = new LeaderInfo(FIRST.address(), "s1-again");

        harness.answerRegistration(again);
        Answer deployment = harness.deploy(again, 0, 0);
        harness.mailbox.runDue();

        assertThat(deployment.ok).as("the new session's deployment is taken").isTrue();
        assertThat(harness.heartbeat().getJmSessionId()).isEqualTo(again.sessionId());
        harness.leaders.listener.accept(again);
        harness.mailbox.runDue();
        assertThat(harness.jobManagers.registrations).as("the late announcement changes nothing")
                .hasSize(registrations + 1);
        assertThat(harness.tasks.get("0#0").cancelled).isFalse();
    }

    @Test
    void theAnnouncementOfANewLeadershipArrivingWhileItsRegistrationIsInFlightDoesNotRegisterTwice() {
        // Seen in ZooKeeperOutageIT: the TaskManager registered again with the JobManager that
        // led again; the new session's announcement came before the answer and started a second
        // registration, so the JobManager dropped the first one as a lost TaskManager (a restart,
        // and finished sources run again).
        int registrations = registeredThenForgotten();
        LeaderInfo again = new LeaderInfo(FIRST.address(), "s1-again");

        harness.leaders.listener.accept(again);
        harness.mailbox.runDue();
        assertThat(harness.jobManagers.registrations).as("the registration in flight goes to that JobManager")
                .hasSize(registrations + 1);

        harness.answerRegistration(again);
        Answer deployment = harness.deploy(again, 0, 0);
        harness.mailbox.runDue();
        assertThat(deployment.ok).isTrue();
        assertThat(harness.heartbeat().getJmSessionId()).isEqualTo(again.sessionId());
    }

    @Test
    void missedHeartbeatsLoseTheJobManagerAndRegisterAgain() {
        harness.register(FIRST);
        harness.deploy(FIRST, 0, 0);
        harness.mailbox.runDue();
        int registrations = harness.jobManagers.registrations.size();

        for (long waited = 0; waited <= HEARTBEAT_TIMEOUT_MS; waited += HEARTBEAT_MS) {
            harness.mailbox.advance(HEARTBEAT_MS);
            FakeJobManager.last(harness.jobManagers.heartbeats).answer()
                    .completeExceptionally(Status.UNAVAILABLE.asRuntimeException());
            harness.mailbox.runDue();
        }

        assertThat(harness.tasks.get("0#0").cancelled).isTrue();
        assertThat(harness.jobManagers.registrations).as("not while the cancelled task holds its slot")
                .hasSize(registrations);

        harness.endTask(attempt(0, 0), TaskState.CANCELED);

        assertThat(harness.jobManagers.registrations).hasSize(registrations + 1);
    }

    @Test
    void aCancelledTaskThatDoesNotLeaveItsSlotDelaysTheRegistrationOnlyForAHeartbeatTimeout() {
        harness.register(FIRST);
        harness.deploy(FIRST, 0, 0);
        harness.mailbox.runDue();

        harness.leaders.listener.accept(SECOND);
        harness.mailbox.runDue();
        assertThat(harness.jobManagers.registrations).hasSize(1);

        harness.mailbox.advance(HEARTBEAT_TIMEOUT_MS);

        assertThat(FakeJobManager.last(harness.jobManagers.registrations).address()).isEqualTo(SECOND.address());
    }

    /**
     * Registers with FIRST, whose JobManager then answers a heartbeat with "not registered" (it
     * lost and won leadership again): the executor registers again. Returns the number of
     * registrations before that one.
     */
    private int registeredThenForgotten() {
        harness.register(FIRST);
        int registrations = harness.jobManagers.registrations.size();
        harness.heartbeat();
        harness.answerHeartbeat(JobManagerHeartbeat.newBuilder().setRegistered(false).build());
        assertThat(harness.jobManagers.registrations).hasSize(registrations + 1);
        return registrations;
    }

    private void loseTheJobManagerByMissedHeartbeats() {
        for (long waited = 0; waited <= HEARTBEAT_TIMEOUT_MS; waited += HEARTBEAT_MS) {
            harness.mailbox.advance(HEARTBEAT_MS);
            FakeJobManager.last(harness.jobManagers.heartbeats).answer()
                    .completeExceptionally(Status.UNAVAILABLE.asRuntimeException());
            harness.mailbox.runDue();
        }
    }
}
