package io.duraflow.jobmanager.resourcemanager;

import io.duraflow.mailbox.ManualMailbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.jobmanager.resourcemanager.RecordingGateways.Release;
import io.duraflow.rpc.proto.HeldPartition;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Registrations and the partitions TaskManagers kept through a JobManager failover. */
class ResourceManagerTest {
    private final ManualMailbox main = new ManualMailbox();
    private final RecordingGateways taskManagers = new RecordingGateways(main);
    private final ResourceManager resourceManager = new ResourceManager(main, main::now, 10_000, taskManagers);

    private static HeldPartition held(String jobId, String partitionId) {
        return HeldPartition.newBuilder().setJobId(jobId).setPartitionId(partitionId).build();
    }

    @Test
    void heldPartitionsBelongToTheJobTheTaskManagerNamedNotToAPrefixOfTheirId() {
        // Job ids may contain '-': every partition of job "a-v1" starts with "a-v" like those of job "a".
        resourceManager.register("tm-1", "tm-1.test:6122", 2, List.of(held("a", "a-v0-s0-a0-e0"),
                held("a-v1", "a-v1-v0-s0-a0-e0")));
        resourceManager.register("tm-2", "tm-2.test:6122", 2, List.of(held("a", "a-v0-s1-a0-e0")));

        assertThat(resourceManager.heldPartitions("a")).isEqualTo(Map.of("a-v0-s0-a0-e0", "tm-1",
                "a-v0-s1-a0-e0", "tm-2"));
        assertThat(resourceManager.heldPartitions("a-v1")).isEqualTo(Map.of("a-v1-v0-s0-a0-e0", "tm-1"));

        resourceManager.releasePartitions("tm-1", "a", List.of());

        assertThat(resourceManager.heldPartitions("a")).isEqualTo(Map.of("a-v0-s1-a0-e0", "tm-2"));
        assertThat(resourceManager.heldPartitions("a-v1")).isEqualTo(Map.of("a-v1-v0-s0-a0-e0", "tm-1"));
        assertThat(taskManagers.releases()).containsExactly(new Release("tm-1", "a", List.of()));
    }

    @Test
    void aRegistrationRepeatedInTheSameRegistrationChangesNothingWhileANewOneReplacesIt() {
        List<String> lost = new ArrayList<>();
        resourceManager.addLossListener(lost::add);
        resourceManager.register("tm-1", "tm-1.test:6122", 2, List.of(held("a", "a-v0-s0-a0-e0")), "r1");

        // The TaskManager's call timed out before the answer: it asks again in the same registration.
        resourceManager.register("tm-1", "tm-1.test:6122", 2, List.of(held("a", "a-v0-s0-a0-e0")), "r1");
        assertThat(lost).isEmpty();
        assertThat(resourceManager.heldPartitions("a")).isEqualTo(Map.of("a-v0-s0-a0-e0", "tm-1"));

        // It gave the JobManager up (its tasks cancelled) and registers anew.
        resourceManager.register("tm-1", "tm-1.test:6122", 2, List.of(), "r2");
        assertThat(lost).containsExactly("tm-1");
        assertThat(resourceManager.heldPartitions("a")).isEmpty();

        // Without an id (an older TaskManager) every registration is a new one.
        resourceManager.register("tm-1", "tm-1.test:6122", 2, List.of(), "");
        resourceManager.register("tm-1", "tm-1.test:6122", 2, List.of(), "");
        assertThat(lost).containsExactly("tm-1", "tm-1", "tm-1");
    }

    @Test
    void aTaskManagerThatIsLostOrRegistersAgainTakesItsPartitionsAlong() {
        List<String> lost = new ArrayList<>();
        resourceManager.addLossListener(lost::add);
        resourceManager.register("tm-1", "tm-1.test:6122", 2, List.of(held("a", "a-v0-s0-a0-e0")));
        resourceManager.register("tm-2", "tm-2.test:6122", 2, List.of(held("a", "a-v0-s1-a0-e0")));
        assertThat(taskManagers.connected()).containsOnlyKeys("tm-1", "tm-2");

        resourceManager.register("tm-1", "tm-1.test:6123", 2, List.of());
        assertThat(lost).containsExactly("tm-1");
        assertThat(resourceManager.heldPartitions("a")).isEqualTo(Map.of("a-v0-s1-a0-e0", "tm-2"));
        assertThat(taskManagers.connected()).containsEntry("tm-1", "tm-1.test:6123");

        main.advance(10_001);
        resourceManager.heartbeat(io.duraflow.rpc.proto.TaskManagerHeartbeat.newBuilder().setTmId("tm-1").build());
        resourceManager.checkHeartbeats();
        assertThat(lost).containsExactly("tm-1", "tm-2");
        assertThat(resourceManager.heldPartitions("a")).isEmpty();
        assertThat(taskManagers.connected()).containsOnlyKeys("tm-1");
    }

    @Test
    void aHeartbeatsMemoryFiguresReachTheClusterOverviewAndAnUnknownTaskManagersAreRefused() {
        resourceManager.register("tm-1", "tm-1.test:6122", 2);

        assertThat(resourceManager.heartbeat(io.duraflow.rpc.proto.TaskManagerHeartbeat.newBuilder().setTmId("tm-1")
                .setHeapUsedBytes(10).setPeakHeapUsedBytes(20).setNetworkBytesInUse(384 * 1024)
                .setNetworkBytesTotal(64 << 20).build())).isTrue();
        assertThat(resourceManager.heartbeat(io.duraflow.rpc.proto.TaskManagerHeartbeat.newBuilder().setTmId("tm-9")
                .setNetworkBytesInUse(1).build())).as("not registered").isFalse();

        assertThat(resourceManager.describe()).singleElement().satisfies(tm -> {
            assertThat(tm.getHeapUsedBytes()).isEqualTo(10);
            assertThat(tm.getPeakHeapUsedBytes()).isEqualTo(20);
            assertThat(tm.getNetworkBytesInUse()).isEqualTo(384 * 1024);
            assertThat(tm.getNetworkBytesTotal()).isEqualTo(64 << 20);
        });
    }

    @Test
    void aTaskManagerWhoseAddressIsNotHostAndPortIsNotRegistered() {
        for (String address : List.of("", "tm-1.test", "tm-1.test:", ":6122", "tm-1.test:http", "tm-1.test:0",
                "tm-1.test:70000")) {
            assertThatThrownBy(() -> resourceManager.register("tm-1", address, 2))
                    .isInstanceOfSatisfying(io.grpc.StatusRuntimeException.class, e -> {
                        assertThat(e.getStatus().getCode()).isEqualTo(io.grpc.Status.Code.INVALID_ARGUMENT);
                        assertThat(e.getStatus().getDescription()).contains("'" + address + "'")
                                .contains("is not host:port").contains("taskmanager.rpc.address");
                    });
        }

        assertThat(resourceManager.taskManagers()).isEmpty();
        assertThat(taskManagers.connected()).isEmpty();
    }

    @Test
    void anAddressNobodyListensOnIsRefusedBeforeRegistration() throws Exception {
        int closedPort;
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0, 1,
                java.net.InetAddress.getLoopbackAddress())) {
            closedPort = socket.getLocalPort();
            TaskManagerAddresses.check("tm-1", "127.0.0.1:" + closedPort, 2_000);  // listening: fine
        }

        assertThatThrownBy(() -> TaskManagerAddresses.check("tm-1", "127.0.0.1:" + closedPort, 2_000))
                .isInstanceOfSatisfying(io.grpc.StatusRuntimeException.class, e -> assertThat(
                        e.getStatus().getDescription()).contains("the JobManager cannot connect to it"));
        assertThatThrownBy(() -> TaskManagerAddresses.check("tm-1", "no-such-host.invalid:6122", 2_000))
                .isInstanceOfSatisfying(io.grpc.StatusRuntimeException.class, e -> assertThat(
                        e.getStatus().getDescription()).contains("does not resolve"));
    }

    private static io.grpc.StatusRuntimeException slotsBusy() {
        return io.grpc.Status.RESOURCE_EXHAUSTED.withDescription("all 1 slots of tm-1 are busy").asRuntimeException();
    }

    private static io.duraflow.rpc.proto.TaskDeployment deployment(int subtask) {
        return io.duraflow.rpc.proto.TaskDeployment.newBuilder().setJmSessionId("s1").setAttempt(
                io.duraflow.rpc.proto.AttemptId.newBuilder().setJobId("job").setSubtask(subtask)).build();
    }

    @Test
    void aDeploymentRefusedForBusySlotsIsSentAgainUntilTheSlotIsFreeWithoutFailing() {
        // The JobManager freed the slot when it asked for a cancel; the TaskManager frees it once the task stopped.
        List<Throwable> failures = new ArrayList<>();
        resourceManager.register("tm-1", "tm-1.test:6122", 1);
        taskManagers.refuseNextDeploy(slotsBusy());
        taskManagers.refuseNextDeploy(slotsBusy());

        resourceManager.deploy("tm-1", deployment(0), failures::add);
        main.runDue();
        assertThat(taskManagers.refused()).hasSize(1);
        main.advance(TaskManagerCalls.FIRST_DEPLOY_RETRY_MS);
        assertThat(taskManagers.refused()).hasSize(2);
        assertThat(taskManagers.deployments()).isEmpty();
        main.advance(2 * TaskManagerCalls.FIRST_DEPLOY_RETRY_MS);

        assertThat(taskManagers.deployments()).singleElement().satisfies(d -> assertThat(d.subtask()).isZero());
        assertThat(failures).as("no failure, so no restart used up").isEmpty();
    }

    @Test
    void aBusySlotThatStaysBusyPastTheHeartbeatTimeoutFailsTheDeployment() {
        List<Throwable> failures = new ArrayList<>();
        resourceManager.register("tm-1", "tm-1.test:6122", 1);
        for (int i = 0; i < 100; i++) {
            taskManagers.refuseNextDeploy(slotsBusy());
        }
        resourceManager.deploy("tm-1", deployment(0), failures::add);
        main.runDue();
        for (int waited = 0; waited <= 10_000 && failures.isEmpty(); waited += 100) {
            main.advance(100);
        }

        assertThat(failures).singleElement().extracting(Throwable::getMessage).asString().contains("busy");
        assertThat(main.now()).isBetween(10_000L - TaskManagerCalls.MAX_DEPLOY_RETRY_MS, 10_100L);
        assertThat(taskManagers.refused().size()).isBetween(20, 30);
    }

    /**
     * A cancelled attempt is not sent again, and since it never reached its TaskManager (which
     * would confirm a cancel with CANCELED) its deployment fails, so the attempt ends; a lost
     * TaskManager's retries end with it (losing it ends its attempts).
     */
    @Test
    void cancellingTheAttemptOrLosingTheTaskManagerEndsTheRetries() {
        List<Throwable> failures = new ArrayList<>();
        resourceManager.register("tm-1", "tm-1.test:6122", 1);
        resourceManager.register("tm-2", "tm-2.test:6122", 1);
        taskManagers.refuseNextDeploy(slotsBusy());
        taskManagers.refuseNextDeploy(slotsBusy());
        resourceManager.deploy("tm-1", deployment(0), failures::add);
        resourceManager.deploy("tm-2", deployment(1), failures::add);
        main.runDue();

        resourceManager.cancel("tm-1", deployment(0).getAttempt());
        resourceManager.register("tm-2", "tm-2.test:6123", 1); // registers again as new: the old one is lost
        main.advance(1_000);

        assertThat(taskManagers.refused()).as("nothing sent again").hasSize(2);
        assertThat(taskManagers.deployments()).isEmpty();
        assertThat(failures).as("the cancelled attempt's deployment, so that it ends").singleElement()
                .extracting(Throwable::getMessage).asString().contains("cancelled before it reached TaskManager tm-1");
    }

    /**
     * A kept task the new leader cancels holds its slot, and the future that waits for it stays
     * open, until the TaskManager's heartbeat no longer lists it, or the TaskManager is gone: a
     * restored attempt of the same subtask must not start beside it.
     */
    @Test
    void aCancelledKeptTaskHoldsItsSlotUntilItsTaskManagerNoLongerRunsIt() {
        io.duraflow.rpc.proto.AttemptId first = deployment(0).getAttempt();
        io.duraflow.rpc.proto.AttemptId second = deployment(1).getAttempt();
        resourceManager.register("tm-1", "tm-1.test:6122", 2, List.of(), "r1", List.of(
                io.duraflow.rpc.proto.HeldTask.newBuilder().setAttempt(first).build(),
                io.duraflow.rpc.proto.HeldTask.newBuilder().setAttempt(second).build()));
        assertThat(resourceManager.freeSlots()).isZero();

        var firstStopped = resourceManager.cancelHeld("tm-1", first);
        var secondStopped = resourceManager.cancelHeld("tm-1", second);
        assertThat(taskManagers.cancels()).extracting(RecordingGateways.Cancel::attempt).containsExactly(first, second);
        assertThat(resourceManager.cancelHeld("tm-1", first)).as("decided on already: nothing to wait for").isDone();

        resourceManager.tasksRunning("tm-1", List.of(first, second));
        assertThat(firstStopped).isNotDone();
        assertThat(resourceManager.freeSlots()).isZero();

        resourceManager.tasksRunning("tm-1", List.of(second));
        assertThat(firstStopped).isDone();
        assertThat(secondStopped).isNotDone();
        assertThat(resourceManager.freeSlots()).isEqualTo(1);

        resourceManager.register("tm-1", "tm-1.test:6122", 2, List.of(), "r2", List.of());
        assertThat(secondStopped).as("its TaskManager registered anew: what it ran is gone").isDone();
    }
}
