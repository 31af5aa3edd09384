package io.duraflow.jobmanager.resourcemanager;

import io.duraflow.mailbox.ManualMailbox;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.jobmanager.resourcemanager.TaskManagerTransport.PingResult;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.TaskDeployment;
import io.grpc.Status;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A suspicion that a TaskManager died is settled by pings ({@link TaskManagerProbes}): lost only
 * if they are refused, kept if anything answers or nothing is conclusive, one probe at a time.
 * The rule numbers are those of {@link TaskManagerProbes} in docs/design/failure-detection.md.
 * Driven by a manual clock and pings the test answers.
 */
class ResourceManagerSuspicionTest {
    private static final long HEARTBEAT_TIMEOUT_MS = 30_000;
    private static final TaskManagerProbes.Settings PROBES = new TaskManagerProbes.Settings(3, 100, 1_000);
    private static final PingResult REFUSED = new PingResult.Refused("Connection refused: /127.0.0.1:6122");

    private final ManualMailbox main = new ManualMailbox();
    private final RecordingGateways taskManagers = new RecordingGateways(main);
    private final List<String> lost = new ArrayList<>();
    private final AtomicInteger slotsOffered = new AtomicInteger();
    private ResourceManager resourceManager = resourceManager(PROBES);

    private ResourceManager resourceManager(TaskManagerProbes.Settings settings) {
        return new ResourceManager(main, main::now, HEARTBEAT_TIMEOUT_MS, taskManagers, settings);
    }

    @BeforeEach
    void register() {
        resourceManager.addLossListener(lost::add);
        resourceManager.register("tm-1", "127.0.0.1:6122", 2);
        resourceManager.register("tm-2", "127.0.0.1:6123", 2);
        resourceManager.addSlotListener(slotsOffered::incrementAndGet);
    }

    @Test
    void aSuspectedTaskManagerWhosePingsAreAllRefusedIsLostWithoutWaitingForItsHeartbeats() {
        resourceManager.suspect("tm-1", "a stream from it broke");

        // Rule 2: pinged at once; meanwhile none of its slots is offered.
        assertThat(taskManagers.pings()).extracting(RecordingGateways.Ping::tmId).containsExactly("tm-1");
        assertThat(resourceManager.isSuspected("tm-1")).isTrue();
        assertThat(resourceManager.freeSlots()).isEqualTo(2);
        assertThat(resourceManager.allocate().tmId()).isEqualTo("tm-2");
        assertThat(resourceManager.allocate().tmId()).isEqualTo("tm-2");
        assertThat(resourceManager.allocate()).as("tm-1's slots are held back").isNull();

        // Rule 5: a refused ping is tried again after the interval, until three in a row were refused.
        taskManagers.answerPing("tm-1", REFUSED);
        main.advance(99);
        assertThat(taskManagers.pings()).hasSize(1);
        main.advance(1);
        assertThat(taskManagers.pings()).hasSize(2);
        taskManagers.answerPing("tm-1", REFUSED);
        main.advance(100);
        assertThat(lost).isEmpty();
        taskManagers.answerPing("tm-1", REFUSED);
        main.runDue();

        assertThat(lost).containsExactly("tm-1");
        assertThat(main.now()).as("lost 200 ms after the suspicion, not after the heartbeat timeout").isEqualTo(200);
        assertThat(resourceManager.taskManagers()).containsExactly("tm-2");
        assertThat(taskManagers.connected()).containsOnlyKeys("tm-2");
        assertThat(resourceManager.isSuspected("tm-1")).isFalse();
    }

    @Test
    void aSuspectedTaskManagerThatAnswersIsKeptAndItsSlotsAreOfferedAgain() {
        resourceManager.suspect("tm-1", "a stream from it broke");
        assertThat(resourceManager.freeSlots()).isEqualTo(2);

        // Rule 3.
        taskManagers.answerPing("tm-1", new PingResult.Answered("tm-1"));
        main.runDue();

        assertThat(lost).isEmpty();
        assertThat(resourceManager.isSuspected("tm-1")).isFalse();
        assertThat(resourceManager.freeSlots()).isEqualTo(4);
        assertThat(slotsOffered).as("jobs waiting for slots try again").hasValue(1);
        main.advance(10_000);
        assertThat(taskManagers.pings()).as("no more pings").hasSize(1);
    }

    @Test
    void refusalsFollowedByAnAnswerKeepTheTaskManager() {
        resourceManager.suspect("tm-1", "a call to it failed");
        taskManagers.answerPing("tm-1", REFUSED);
        main.advance(100);
        taskManagers.answerPing("tm-1", REFUSED);
        main.advance(100);
        taskManagers.answerPing("tm-1", new PingResult.Answered("tm-1"));
        main.runDue();

        assertThat(lost).isEmpty();
        assertThat(resourceManager.taskManagers()).containsExactly("tm-1", "tm-2");
    }

    @Test
    void suspicionsWhileAProbeRunsJoinItSoThatThereIsOnePingAtATime() {
        resourceManager.suspect("tm-1", "the stream of task a broke");
        resourceManager.suspect("tm-1", "the stream of task b broke");
        taskManagers.answerPing("tm-1", REFUSED);
        main.runDue();
        resourceManager.suspect("tm-1", "a cancel to it failed");
        main.advance(100);
        resourceManager.suspect("tm-1", "its connection went from READY to IDLE");

        // Rule 1.
        assertThat(taskManagers.pings()).hasSize(2);
        assertThat(resourceManager.probesStarted()).isEqualTo(1);

        taskManagers.answerPing("tm-1", REFUSED);
        main.advance(100);
        taskManagers.answerPing("tm-1", REFUSED);
        main.runDue();
        assertThat(lost).containsExactly("tm-1");

        // A suspicion of a TaskManager that is not registered (any more) starts nothing.
        resourceManager.suspect("tm-1", "a late report");
        assertThat(taskManagers.pings()).hasSize(3);
        assertThat(taskManagers.pendingPings()).isEmpty();
    }

    @Test
    void aPingWithoutAnAnswerKeepsTheTaskManagerAndLeavesItToTheHeartbeats() {
        resourceManager.suspect("tm-1", "a stream from it broke");
        taskManagers.answerPing("tm-1", new PingResult.NoAnswer("no answer within 1000 ms"));
        main.runDue();

        // Rule 6.
        assertThat(lost).isEmpty();
        assertThat(resourceManager.freeSlots()).isEqualTo(4);

        main.advance(HEARTBEAT_TIMEOUT_MS + 1);
        resourceManager.heartbeat(io.duraflow.rpc.proto.TaskManagerHeartbeat.newBuilder().setTmId("tm-2").build());
        resourceManager.checkHeartbeats();
        assertThat(lost).containsExactly("tm-1");
    }

    @Test
    void anotherTaskManagerAnsweringAtTheAddressMeansTheSuspectedOneIsGone() {
        resourceManager.suspect("tm-1", "a stream from it broke");
        taskManagers.answerPing("tm-1", new PingResult.Answered("tm-9"));
        main.runDue();

        // Rule 4.
        assertThat(lost).containsExactly("tm-1");
    }

    @Test
    void aPingResultForARegistrationThatEndedIsDropped() {
        resourceManager.suspect("tm-1", "a stream from it broke");
        taskManagers.answerPing("tm-1", REFUSED);
        main.runDue();
        // It registers again before the retry: the old registration ends (a loss), the new one is not suspected.
        resourceManager.register("tm-1", "127.0.0.1:6124", 2);
        assertThat(lost).containsExactly("tm-1");

        // Rule 7: the retry of the old probe is called off.
        main.advance(1_000);
        assertThat(taskManagers.pings()).hasSize(1);
        assertThat(resourceManager.isSuspected("tm-1")).isFalse();
        assertThat(resourceManager.taskManagers()).containsExactlyInAnyOrder("tm-1", "tm-2");
    }

    @Test
    void anAnswerThatComesAfterTheRegistrationEndedIsDroppedToo() {
        resourceManager.suspect("tm-1", "a stream from it broke");
        resourceManager.register("tm-1", "127.0.0.1:6124", 2);
        resourceManager.suspect("tm-1", "the new registration's connection failed");
        assertThat(taskManagers.pings()).hasSize(2);

        // The first ping's refusal belongs to the old registration; the new probe decides alone.
        taskManagers.answerPing("tm-1", REFUSED);
        taskManagers.answerPing("tm-1", new PingResult.Answered("tm-1"));
        main.runDue();
        main.advance(1_000);

        assertThat(lost).as("only the re-registration").containsExactly("tm-1");
        assertThat(resourceManager.taskManagers()).contains("tm-1");
        assertThat(taskManagers.pings()).hasSize(2);
    }

    @Test
    void aDeploymentRefusedWithUnavailableWaitsForTheProbe() {
        List<Throwable> failures = new ArrayList<>();
        taskManagers.refuseNextDeploy(Status.UNAVAILABLE.withDescription("io exception").asRuntimeException());
        resourceManager.deploy("tm-1", deployment(), failures::add);
        main.runDue();
        assertThat(taskManagers.pings()).hasSize(1);
        assertThat(failures).as("held until the probe decides").isEmpty();

        taskManagers.answerPing("tm-1", new PingResult.Answered("tm-1"));
        main.runDue();
        assertThat(lost).isEmpty();
        assertThat(failures).as("kept: only the deployment failed").singleElement()
                .extracting(Throwable::getMessage).asString().contains("io exception");

        taskManagers.refuseNextDeploy(Status.UNAVAILABLE.withDescription("io exception").asRuntimeException());
        resourceManager.deploy("tm-1", deployment(), failures::add);
        main.runDue();
        for (int i = 0; i < 3; i++) {
            taskManagers.answerPing("tm-1", REFUSED);
            main.advance(100);
        }
        assertThat(lost).containsExactly("tm-1");
        assertThat(failures).as("lost: the loss resets the deployment, which does not fail on its own").hasSize(1);
    }

    @Test
    void suspicionsFromTheTransportsThreadsAreHandledOnTheMainThread() throws Exception {
        Thread grpcThread = new Thread(() -> taskManagers.reportSuspicion("tm-1", "its connection went from READY to IDLE"));
        grpcThread.start();
        grpcThread.join();
        assertThat(taskManagers.pings()).as("not on the transport's thread").isEmpty();

        main.runDue();
        assertThat(taskManagers.pings()).extracting(RecordingGateways.Ping::tmId).containsExactly("tm-1");
    }

    @Test
    void withZeroAttemptsSuspicionsAreOnlyLogged() {
        ManualMailbox otherMain = new ManualMailbox();
        RecordingGateways gateways = new RecordingGateways(otherMain);
        ResourceManager heartbeatsOnly = new ResourceManager(otherMain, otherMain::now, HEARTBEAT_TIMEOUT_MS, gateways,
                new TaskManagerProbes.Settings(0, 100, 1_000));
        heartbeatsOnly.register("tm-1", "127.0.0.1:6122", 2);

        heartbeatsOnly.suspect("tm-1", "a stream from it broke");

        // Rule 8.
        assertThat(gateways.pings()).isEmpty();
        assertThat(heartbeatsOnly.freeSlots()).isEqualTo(2);

        // A deployment refused with UNAVAILABLE still loses the TaskManager at once, as before probes.
        List<String> lostHere = new ArrayList<>();
        heartbeatsOnly.addLossListener(lostHere::add);
        gateways.refuseNextDeploy(Status.UNAVAILABLE.withDescription("io exception").asRuntimeException());
        heartbeatsOnly.deploy("tm-1", deployment(), error -> { throw new AssertionError("reset by the loss"); });
        otherMain.runDue();
        assertThat(lostHere).containsExactly("tm-1");
    }

    private static TaskDeployment deployment() {
        return TaskDeployment.newBuilder().setJmSessionId("s1").setAttempt(AttemptId.newBuilder().setJobId("job"))
                .build();
    }
}
