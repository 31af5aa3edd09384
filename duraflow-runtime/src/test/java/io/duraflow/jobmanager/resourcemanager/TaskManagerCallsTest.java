package io.duraflow.jobmanager.resourcemanager;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.jobmanager.resourcemanager.RecordingGateways.Cancel;
import io.duraflow.jobmanager.resourcemanager.RecordingGateways.Release;
import io.duraflow.mailbox.ManualMailbox;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.HeldPartition;
import io.duraflow.rpc.proto.HeldTask;
import io.duraflow.rpc.proto.TaskDeployment;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The calls to TaskManagers alone, over a recording transport: only registered TaskManagers are
 * called, and releases keep the record of partitions kept from an earlier leader up to date. The
 * retries of deployments refused for busy slots are tested through the resource manager in
 * {@code ResourceManagerTest}.
 */
class TaskManagerCallsTest {
    private final ManualMailbox main = new ManualMailbox();
    private final RecordingGateways transport = new RecordingGateways(main);
    private final KeptFromEarlierLeader kept = new KeptFromEarlierLeader();
    private final TaskManagerRegistry registry = new TaskManagerRegistry(new TaskManagerRegistry.Lifecycle() {
        @Override
        public void renewed(String tmId) {
        }

        @Override
        public void began(TaskManagerRegistry.Registration registration, List<HeldPartition> held,
                List<HeldTask> keptTasks) {
            kept.add(registration.tmId(), held, keptTasks);
        }

        @Override
        public void ended(String tmId) {
            kept.ended(tmId);
        }
    });
    private final TaskManagerLiveness liveness = new TaskManagerLiveness(main, main::now, 10_000,
            new TaskManagerProbes.Settings(0, 100, 1_000), transport::ping, registry::lose, () -> { });
    private final TaskManagerCalls calls = new TaskManagerCalls(main, main::now, 10_000, transport, registry, liveness,
            kept);

    private static final AttemptId ATTEMPT = AttemptId.newBuilder().setJobId("a").build();

    private static HeldPartition held(String jobId, String partitionId) {
        return HeldPartition.newBuilder().setJobId(jobId).setPartitionId(partitionId).build();
    }

    @Test
    void aDeploymentToATaskManagerThatIsNotRegisteredFailsOnTheMainThread() {
        List<Throwable> failures = new ArrayList<>();

        calls.deploy("tm-1", TaskDeployment.newBuilder().setAttempt(ATTEMPT).build(), failures::add);
        assertThat(failures).as("not while the caller runs").isEmpty();
        main.runDue();

        assertThat(failures).singleElement().extracting(Throwable::getMessage).isEqualTo("TaskManager tm-1 is gone");
        assertThat(transport.deployments()).isEmpty();
    }

    @Test
    void callsToATaskManagerThatIsNotRegisteredAreDropped() {
        calls.cancel("tm-1", ATTEMPT);
        calls.cancelStray("tm-1", ATTEMPT);
        calls.sendOperatorEvent("tm-1", ATTEMPT, 0, 1, io.duraflow.rpc.proto.OperatorEvent.getDefaultInstance());
        calls.triggerCheckpoint("tm-1", io.duraflow.rpc.proto.TriggerCheckpointRequests.getDefaultInstance());
        calls.notifyCheckpoint("tm-1", io.duraflow.rpc.proto.CheckpointNotifications.getDefaultInstance());
        calls.releasePartitions("tm-1", "a", List.of());
        calls.releaseKeptPartitions("tm-1", "a", List.of());

        assertThat(transport.cancels()).isEmpty();
        assertThat(transport.events()).isEmpty();
        assertThat(transport.triggers()).isEmpty();
        assertThat(transport.notifications()).isEmpty();
        assertThat(transport.releases()).isEmpty();
    }

    @Test
    void callsToARegisteredTaskManagerGoThroughTheTransport() {
        registry.register("tm-1", "tm-1.test:6122", 1, List.of(), "", List.of());

        calls.cancel("tm-1", ATTEMPT);
        calls.cancelStray("tm-1", ATTEMPT);
        calls.releaseKeptPartitions("tm-1", "a", List.of("a-v0-s0-a0-e0"));

        assertThat(transport.cancels()).containsExactly(new Cancel("tm-1", ATTEMPT), new Cancel("tm-1", ATTEMPT));
        assertThat(transport.releases()).containsExactly(new Release("tm-1", "a", List.of("a-v0-s0-a0-e0"), true));
    }

    @Test
    void aReleaseSomeoneWaitsForEndsAtOnceForATaskManagerThatIsNotRegistered() {
        List<Throwable> answers = new ArrayList<>();

        calls.releasePartitions("tm-1", "a", List.of(), answers::add);

        assertThat(answers).containsExactly((Throwable) null);
        assertThat(transport.releases()).isEmpty();
    }

    @Test
    void aFailedReleaseOfATaskManagerLostMeanwhileCountsAsDone() {
        registry.register("tm-1", "tm-1.test:6122", 1, List.of(), "", List.of());
        registry.register("tm-2", "tm-2.test:6122", 1, List.of(), "", List.of());
        IllegalStateException noAnswer = new IllegalStateException("no answer");
        transport.failReleasesTo("tm-1", noAnswer);
        transport.failReleasesTo("tm-2", noAnswer);
        List<Throwable> answers = new ArrayList<>();

        calls.releasePartitions("tm-1", "a", List.of(), answers::add);
        calls.releasePartitions("tm-2", "a", List.of(), answers::add);
        registry.lose("tm-1", "it missed heartbeats");
        main.runDue();

        assertThat(answers).as("tm-1 took its partitions along; tm-2 still has them").containsExactly(null, noAnswer);
    }

    @Test
    void releasesForgetThePartitionsKeptFromAnEarlierLeader() {
        registry.register("tm-1", "tm-1.test:6122", 1, List.of(held("a", "a-v0-s0-a0-e0"), held("a", "a-v0-s1-a0-e0"),
                held("b", "b-v0-s0-a0-e0")), "", List.of());

        calls.releaseKeptPartitions("tm-1", "a", List.of("a-v0-s0-a0-e0"));
        assertThat(kept.heldPartitions("a")).isEqualTo(Map.of("a-v0-s1-a0-e0", "tm-1"));

        calls.releasePartitions("tm-1", "a", List.of(), error -> { });
        assertThat(kept.heldPartitions("a")).isEmpty();
        assertThat(kept.heldPartitions("b")).isEqualTo(Map.of("b-v0-s0-a0-e0", "tm-1"));
    }
}
