package io.duraflow.taskmanager;

import static io.duraflow.taskmanager.TaskExecutorHarness.FIRST;
import static io.duraflow.taskmanager.TaskExecutorHarness.HEARTBEAT_MS;
import static io.duraflow.taskmanager.TaskExecutorHarness.HEARTBEAT_TIMEOUT_MS;
import static io.duraflow.taskmanager.TaskExecutorHarness.KEEPS_TASKS;
import static io.duraflow.taskmanager.TaskExecutorHarness.OWN_ADDRESS;
import static io.duraflow.taskmanager.TaskExecutorHarness.SECOND;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.taskmanager.TaskExecutorHarness.Answer;
import io.grpc.Status;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;

/**
 * How the TaskExecutor registers with the leader: requests of the session being registered wait for
 * the answer, a registration that timed out is asked again as the same one, a TaskManager that gave
 * its JobManager up registers anew; requests of another session are refused, and state changes
 * happen on the mailbox only. Driven step by step through {@link TaskExecutorHarness}.
 */
class TaskExecutorRegistrationTest {
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
    void registersWithTheLeaderAndLetsRequestsOfItsSessionWaitForTheAnswer() {
        harness.leaders.listener.accept(FIRST);
        harness.mailbox.runDue();

        assertThat(harness.jobManagers.registrations).singleElement().satisfies(call -> {
            assertThat(call.address()).isEqualTo(FIRST.address());
            assertThat(call.request().getAddress()).isEqualTo(OWN_ADDRESS);
            assertThat(call.request().getSlots()).isEqualTo(2);
        });
        Answer early = harness.deploy(FIRST, 0, 0);
        harness.mailbox.runDue();
        assertThat(early.answered()).as("a deployment of the session being registered waits").isFalse();

        harness.answerRegistration(FIRST);

        assertThat(early.ok).isTrue();
        assertThat(harness.startedTaskThreads).hasSize(1);
    }

    @Test
    void aRegistrationThatTimesOutIsAskedAgainInTheSameRegistrationWhileDeploymentsOfItsSessionWait() {
        // Seen in the job result store failover tests and BatchRecoveryIT under load: the call timed out after the
        // JobManager had registered this TaskManager and deployed here; registering anew made it
        // drop the first registration as a lost TaskManager (failing those tasks, forgetting
        // finished output) while the deployments ran here regardless.
        harness.leaders.listener.accept(FIRST);
        harness.mailbox.runDue();
        String registrationId = FakeJobManager.last(harness.jobManagers.registrations).request().getRegistrationId();
        Answer early = harness.deploy(FIRST, 0, 0);
        harness.mailbox.runDue();

        FakeJobManager.last(harness.jobManagers.registrations).answer()
                .completeExceptionally(Status.DEADLINE_EXCEEDED.asRuntimeException());
        harness.mailbox.runDue();

        assertThat(harness.jobManagers.registrations).hasSize(2);
        assertThat(FakeJobManager.last(harness.jobManagers.registrations).request().getRegistrationId())
                .isNotEmpty().isEqualTo(registrationId);
        assertThat(early.answered()).as("the deployment still waits for the answer").isFalse();

        harness.answerRegistration(FIRST);

        assertThat(early.ok).isTrue();
        assertThat(harness.startedTaskThreads).hasSize(1);
    }

    @Test
    void aTaskManagerThatGaveItsJobManagerUpRegistersInANewRegistration() {
        harness.register(FIRST);
        String first = FakeJobManager.last(harness.jobManagers.registrations).request().getRegistrationId();

        for (long waited = 0; waited <= HEARTBEAT_TIMEOUT_MS; waited += HEARTBEAT_MS) {
            harness.mailbox.advance(HEARTBEAT_MS);
            FakeJobManager.last(harness.jobManagers.heartbeats).answer()
                    .completeExceptionally(Status.UNAVAILABLE.asRuntimeException());
            harness.mailbox.runDue();
        }

        assertThat(harness.jobManagers.registrations).hasSize(2);
        assertThat(FakeJobManager.last(harness.jobManagers.registrations).request().getRegistrationId())
                .isNotEmpty().isNotEqualTo(first);
    }

    @Test
    void refusesRequestsOfAnotherSession() {
        harness.register(FIRST);

        Answer answer = harness.deploy(SECOND, 0, 0);
        harness.mailbox.runDue();

        assertThat(answer.refused.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
        assertThat(harness.startedTaskThreads).isEmpty();
    }

    @Test
    void aRefusedRegistrationFailsTheStartWithTheJobManagersReason() {
        harness.leaders.listener.accept(FIRST);
        harness.mailbox.runDue();

        FakeJobManager.last(harness.jobManagers.registrations).answer().completeExceptionally(Status.INVALID_ARGUMENT
                .withDescription("TaskManager tm-x advertises address 'nowhere:1', but ...").asRuntimeException());
        harness.mailbox.runDue();

        assertThatThrownBy(() -> harness.executor.start(OWN_ADDRESS, 1_000)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("refused to register").hasMessageContaining("advertises address 'nowhere:1'");
    }

    @Test
    void stateChangingMethodsRefuseToRunOutsideTheMailbox() {
        assertThatThrownBy(() -> harness.executor.connection.followLeader(FIRST))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("mailbox");
    }
}
