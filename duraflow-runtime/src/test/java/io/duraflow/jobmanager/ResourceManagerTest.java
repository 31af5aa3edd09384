package io.duraflow.jobmanager;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.jobmanager.RecordingGateways.Release;
import io.duraflow.rpc.proto.HeldPartition;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Registrations and the partitions TaskManagers kept through a JobManager failover. */
class ResourceManagerTest {
    private final ManualScheduler main = new ManualScheduler();
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
        resourceManager.heartbeat("tm-1", 0, 0);
        resourceManager.checkHeartbeats();
        assertThat(lost).containsExactly("tm-1", "tm-2");
        assertThat(resourceManager.heldPartitions("a")).isEmpty();
        assertThat(taskManagers.connected()).containsOnlyKeys("tm-1");
    }
}
