package io.duraflow.taskmanager;

import static io.duraflow.taskmanager.TaskExecutorHarness.FIRST;
import static io.duraflow.taskmanager.TaskExecutorHarness.KEEPS_TASKS;
import static io.duraflow.taskmanager.TaskExecutorHarness.SECOND;
import static io.duraflow.taskmanager.TaskExecutorHarness.attempt;
import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.rpc.proto.Ack;
import io.duraflow.rpc.proto.JobManagerHeartbeat;
import io.duraflow.rpc.proto.TaskAttemptState;
import io.duraflow.rpc.proto.TaskState;
import io.grpc.Status;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;

/**
 * The final reports of the TaskExecutor's tasks: one whose call failed goes with every heartbeat until
 * acknowledged, an unacknowledged finish of an earlier leader goes with the registration at the next,
 * and one whose call succeeded is forgotten. Driven step by step through {@link TaskExecutorHarness}.
 */
class TaskExecutorFinalReportsTest {
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
    void aFinalReportWhoseCallFailedGoesWithEveryHeartbeatUntilAcknowledged() {
        harness.register(FIRST);
        harness.deploy(FIRST, 0, 0);
        harness.mailbox.runDue();

        harness.endTask(attempt(0, 0), TaskState.FINISHED);
        FakeJobManager.last(harness.jobManagers.reports).answer().completeExceptionally(
                Status.UNAVAILABLE.withDescription("io exception").asRuntimeException());
        harness.mailbox.runDue();

        var first = harness.heartbeat();
        assertThat(first.getTasksList()).singleElement().satisfies(task -> {
            assertThat(task.getState()).isEqualTo(TaskState.FINISHED);
            assertThat(task.getFinalReport().getAttempt()).isEqualTo(attempt(0, 0));
            assertThat(task.getFinalReport().getRecordsOut()).isEqualTo(42);
        });
        harness.answerHeartbeat(JobManagerHeartbeat.newBuilder().setRegistered(true).build());
        assertThat(harness.heartbeat().getTasksList()).as("not acknowledged: carried again").hasSize(1);

        harness.answerHeartbeat(JobManagerHeartbeat.newBuilder().setRegistered(true)
                .addAcknowledgedReports(attempt(0, 0)).build());

        assertThat(harness.heartbeat().getTasksList()).isEmpty();
    }

    @Test
    void anUnacknowledgedFinishOfAnEarlierLeaderGoesWithTheRegistrationAtTheNextOne() {
        // Regression: the leader went before a sink's FINISHED report reached it; the report used to
        // be dropped at the registration with the next leader, and the sink ran again.
        harness.register(FIRST);
        harness.deploy(FIRST, 0, 0);
        harness.deploy(FIRST, 1, 0);
        harness.mailbox.runDue();
        harness.endTask(attempt(0, 0), TaskState.FINISHED);
        harness.endTask(attempt(1, 0), TaskState.FAILED);
        harness.jobManagers.reports.forEach(call -> call.answer().completeExceptionally(
                Status.UNAVAILABLE.withDescription("io exception").asRuntimeException()));
        harness.mailbox.runDue();

        harness.leaders.listener.accept(SECOND);
        harness.mailbox.runDue();

        assertThat(FakeJobManager.last(harness.jobManagers.registrations).request().getEarlierFinishedReportsList())
                .as("only the finish goes along").singleElement().satisfies(report -> {
                    assertThat(report.getAttempt()).isEqualTo(attempt(0, 0));
                    assertThat(report.getJmSessionId()).isEqualTo(FIRST.sessionId());
                    assertThat(report.getRecordsOut()).isEqualTo(42);
                });
        harness.answerRegistration(SECOND);
        assertThat(harness.heartbeat().getTasksList()).as("the registration's answer acknowledged it").isEmpty();
    }

    @Test
    void aFinalReportWhoseCallSucceededIsForgotten() {
        harness.register(FIRST);
        harness.deploy(FIRST, 0, 0);
        harness.deploy(FIRST, 1, 0);
        harness.mailbox.runDue();

        harness.endTask(attempt(0, 0), TaskState.FINISHED);
        var whileSending = harness.heartbeat();
        assertThat(whileSending.getTasksList()).filteredOn(task -> task.getAttempt().equals(attempt(0, 0)))
                .singleElement().as("the report is on its way: the heartbeat names it but does not carry it")
                .satisfies(task -> {
                    assertThat(task.getState()).isEqualTo(TaskState.FINISHED);
                    assertThat(task.hasFinalReport()).isFalse();
                });
        harness.answerHeartbeat(JobManagerHeartbeat.newBuilder().setRegistered(true).build());
        FakeJobManager.last(harness.jobManagers.reports).answer().complete(Ack.getDefaultInstance());
        harness.mailbox.runDue();

        assertThat(harness.heartbeat().getTasksList()).extracting(TaskAttemptState::getAttempt)
                .as("only the running task").containsExactly(attempt(1, 0));
    }
}
