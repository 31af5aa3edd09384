package io.duraflow.jobmanager.resourcemanager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.jobmanager.resourcemanager.TaskManagerRegistry.Registration;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.HeldPartition;
import io.duraflow.rpc.proto.HeldTask;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The registry alone: when a registration begins, repeats, is replaced or lost, and that the other
 * parts ({@link TaskManagerRegistry.Lifecycle}) hear of it before any listener does.
 */
class TaskManagerRegistryTest {
    /** Everything that happened, in order. */
    private final List<String> events = new ArrayList<>();
    private final TaskManagerRegistry registry = new TaskManagerRegistry(new TaskManagerRegistry.Lifecycle() {
        @Override
        public void renewed(String tmId) {
            events.add("renewed " + tmId);
        }

        @Override
        public void began(Registration registration, List<HeldPartition> held, List<HeldTask> keptTasks) {
            events.add("began " + registration.tmId() + " at " + registration.address() + " with " + held.size()
                    + " partitions, " + keptTasks.size() + " tasks" + (registry.isRegistered(registration.tmId())
                    ? "" : " (not registered yet!)"));
        }

        @Override
        public void ended(String tmId) {
            events.add("ended " + tmId + (registry.isRegistered(tmId) ? " (still registered!)" : ""));
        }
    });

    @BeforeEach
    void listen() {
        registry.addLossListener(tmId -> events.add("lost " + tmId));
        registry.addRegistrationListener((tmId, held) -> events.add("registered " + tmId));
    }

    @Test
    void aNewRegistrationBeginsEverywhereBeforeTheListenersHearOfIt() {
        HeldPartition partition = HeldPartition.newBuilder().setJobId("a").setPartitionId("a-v0-s0-a0-e0").build();
        HeldTask task = HeldTask.newBuilder().setAttempt(AttemptId.newBuilder().setJobId("a")).build();

        assertThat(registry.register("tm-1", "tm-1.test:6122", 2, List.of(partition), "r1", List.of(task))).isTrue();

        assertThat(events).containsExactly("began tm-1 at tm-1.test:6122 with 1 partitions, 1 tasks",
                "registered tm-1");
        assertThat(registry.current("tm-1")).isEqualTo(new Registration("tm-1", "tm-1.test:6122", 2, "r1"));
        assertThat(registry.address("tm-1")).isEqualTo("tm-1.test:6122");
        assertThat(registry.address("tm-9")).isNull();
    }

    @Test
    void theSameRegistrationAgainOnlyRenewsIt() {
        registry.register("tm-1", "tm-1.test:6122", 2, List.of(), "r1", List.of());
        Registration first = registry.current("tm-1");
        events.clear();

        assertThat(registry.register("tm-1", "tm-1.test:6122", 2, List.of(), "r1", List.of())).isFalse();

        assertThat(events).containsExactly("renewed tm-1");
        assertThat(registry.current("tm-1")).isSameAs(first);
    }

    @Test
    void anyOtherRegistrationReplacesTheOneInPlaceAsALostTaskManager() {
        registry.register("tm-1", "tm-1.test:6122", 2, List.of(), "r1", List.of());
        Registration first = registry.current("tm-1");

        for (List<Object> other : List.<List<Object>>of(List.of("tm-1.test:6122", 2, "r2"),
                List.of("tm-1.test:6123", 2, "r2"), List.of("tm-1.test:6123", 3, "r2"), List.of("tm-1.test:6123", 3, ""),
                List.of("tm-1.test:6123", 3, ""))) {
            events.clear();
            assertThat(registry.register("tm-1", (String) other.get(0), (Integer) other.get(1), List.of(),
                    (String) other.get(2), List.of())).as("%s", other).isTrue();
            assertThat(events).as("%s", other).containsExactly("ended tm-1", "lost tm-1",
                    "began tm-1 at " + other.get(0) + " with 0 partitions, 0 tasks", "registered tm-1");
        }
        assertThat(registry.current("tm-1")).as("a call to the first registration is told apart").isNotSameAs(first);
    }

    @Test
    void aLostTaskManagerEndsEverywhereBeforeTheLossListenersHearOfItAndOnlyOnce() {
        registry.register("tm-1", "tm-1.test:6122", 2, List.of(), "", List.of());
        registry.register("tm-2", "tm-2.test:6122", 2, List.of(), "", List.of());
        events.clear();

        registry.lose("tm-1", "it missed heartbeats");
        registry.lose("tm-1", "a late verdict");
        registry.lose("tm-9", "never registered");

        assertThat(events).containsExactly("ended tm-1", "lost tm-1");
        assertThat(registry.registrations()).extracting(Registration::tmId).containsExactly("tm-2");
    }

    @Test
    void anAddressThatIsNotHostAndPortIsRefusedBeforeAnythingHappens() {
        registry.register("tm-1", "tm-1.test:6122", 2, List.of(), "", List.of());
        events.clear();

        assertThatThrownBy(() -> registry.register("tm-1", "tm-1.test", 2, List.of(), "", List.of()))
                .isInstanceOf(io.grpc.StatusRuntimeException.class).hasMessageContaining("is not host:port");

        assertThat(events).isEmpty();
        assertThat(registry.address("tm-1")).as("the registration in place stays").isEqualTo("tm-1.test:6122");
    }

    @Test
    void clearForgetsEveryRegistrationWithoutTellingAnyone() {
        registry.register("tm-1", "tm-1.test:6122", 2, List.of(), "", List.of());
        events.clear();

        registry.clear();

        assertThat(registry.registrations()).isEmpty();
        assertThat(events).isEmpty();
    }
}
