package io.duraflow.jobmanager.resourcemanager;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.jobmanager.resourcemanager.TaskManagerTransport.PingResult;
import io.duraflow.mailbox.ManualMailbox;
import io.duraflow.rpc.proto.TaskManagerHeartbeat;
import io.duraflow.rpc.proto.TaskManagerInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Liveness alone, on a manual clock: heartbeats that stop, suspicions that pings settle, and what
 * it hands on (a TaskManager to lose, slots to offer again). The probe rules themselves are {@link
 * TaskManagerProbes}'s, tested through the resource manager in {@code ResourceManagerSuspicionTest}.
 */
class TaskManagerLivenessTest {
    private static final long TIMEOUT_MS = 10_000;

    private final ManualMailbox main = new ManualMailbox();
    private final List<String> lost = new ArrayList<>();
    private final AtomicInteger slotsBack = new AtomicInteger();
    private final List<Consumer<PingResult>> pings = new ArrayList<>();

    private TaskManagerLiveness liveness(int probeAttempts) {
        return new TaskManagerLiveness(main, main::now, TIMEOUT_MS, new TaskManagerProbes.Settings(probeAttempts, 100,
                1_000), (tmId, timeoutMs, result) -> pings.add(result), (tmId, why) -> lost.add(tmId + ": " + why),
                slotsBack::incrementAndGet);
    }

    private static TaskManagerHeartbeat heartbeat(String tmId) {
        return TaskManagerHeartbeat.newBuilder().setTmId(tmId).build();
    }

    @Test
    void aTaskManagerWhoseHeartbeatsStopForTheTimeoutIsHandedOnToBeLost() {
        TaskManagerLiveness liveness = liveness(3);
        liveness.began("tm-1");
        liveness.began("tm-2");

        main.advance(TIMEOUT_MS);
        assertThat(liveness.heartbeat(heartbeat("tm-2"))).isTrue();
        liveness.checkHeartbeats();
        assertThat(lost).as("exactly the timeout is not yet too late").isEmpty();

        main.advance(1);
        liveness.checkHeartbeats();
        assertThat(lost).containsExactly("tm-1: it missed heartbeats for 10000 ms");
    }

    @Test
    void aRegistrationRepeatedCountsAsAHeartbeat() {
        TaskManagerLiveness liveness = liveness(3);
        liveness.began("tm-1");
        main.advance(TIMEOUT_MS);

        liveness.renewed("tm-1");
        main.advance(1);
        liveness.checkHeartbeats();

        assertThat(lost).isEmpty();
    }

    @Test
    void heartbeatsOfAnUnknownTaskManagerAreRefusedAndOfAnEndedOneToo() {
        TaskManagerLiveness liveness = liveness(3);
        assertThat(liveness.heartbeat(heartbeat("tm-1"))).isFalse();

        liveness.began("tm-1");
        liveness.ended("tm-1");
        assertThat(liveness.heartbeat(heartbeat("tm-1"))).isFalse();
        main.advance(TIMEOUT_MS + 1);
        liveness.checkHeartbeats();
        assertThat(lost).isEmpty();
    }

    @Test
    void theLastHeartbeatsMemoryFiguresGoIntoTheOverview() {
        TaskManagerLiveness liveness = liveness(3);
        liveness.began("tm-1");
        liveness.heartbeat(TaskManagerHeartbeat.newBuilder().setTmId("tm-1").setHeapUsedBytes(10)
                .setPeakHeapUsedBytes(20).setNetworkBytesInUse(30).setNetworkBytesTotal(40).build());

        TaskManagerInfo info = liveness.withMemoryFigures("tm-1", TaskManagerInfo.newBuilder().setTmId("tm-1")).build();

        assertThat(List.of(info.getHeapUsedBytes(), info.getPeakHeapUsedBytes(), info.getNetworkBytesInUse(),
                info.getNetworkBytesTotal())).containsExactly(10L, 20L, 30L, 40L);
        assertThat(liveness.withMemoryFigures("tm-9", TaskManagerInfo.newBuilder()).build().getHeapUsedBytes())
                .isZero();
    }

    @Test
    void aSuspicionConfirmedByRefusedPingsLosesTheTaskManager() {
        TaskManagerLiveness liveness = liveness(2);
        liveness.began("tm-1");

        liveness.suspect("tm-1", "a stream from it broke", null);
        assertThat(liveness.isSuspected("tm-1")).isTrue();
        pings.remove(0).accept(new PingResult.Refused("connection refused"));
        main.advance(100);
        pings.remove(0).accept(new PingResult.Refused("connection refused"));
        main.runDue();

        assertThat(lost).singleElement().asString().startsWith("tm-1: 2 pings in 100 ms were refused");
        assertThat(slotsBack).hasValue(0);
    }

    @Test
    void aKeptSuspectOffersItsSlotsAgainAndRunsWhatWaitedForTheVerdict() {
        TaskManagerLiveness liveness = liveness(3);
        liveness.began("tm-1");
        List<String> kept = new ArrayList<>();

        liveness.refusedConnection("tm-1", "a deployment to it failed", () -> kept.add("deployment failed"));
        pings.remove(0).accept(new PingResult.Answered("tm-1"));
        main.runDue();

        assertThat(lost).isEmpty();
        assertThat(kept).containsExactly("deployment failed");
        assertThat(slotsBack).hasValue(1);
        assertThat(liveness.isSuspected("tm-1")).isFalse();
    }

    @Test
    void aSuspicionOfATaskManagerThatIsNotRegisteredStartsNothing() {
        TaskManagerLiveness liveness = liveness(3);
        List<String> kept = new ArrayList<>();

        liveness.suspect("tm-1", "a late report", () -> kept.add("ran"));

        assertThat(pings).isEmpty();
        assertThat(liveness.probesStarted()).isZero();
        assertThat(kept).as("nothing to wait for").containsExactly("ran");
    }

    @Test
    void withoutProbesARefusedConnectionIsTheVerdict() {
        TaskManagerLiveness liveness = liveness(0);
        liveness.began("tm-1");

        liveness.refusedConnection("tm-1", "a deployment to it failed (io exception)", () -> {
            throw new AssertionError("the loss resets the deployment");
        });

        assertThat(pings).isEmpty();
        assertThat(lost).containsExactly("tm-1: a deployment to it failed (io exception)");
    }

    @Test
    void anEndedRegistrationsProbeEndsWithoutAVerdict() {
        TaskManagerLiveness liveness = liveness(3);
        liveness.began("tm-1");
        liveness.suspect("tm-1", "a stream from it broke", null);

        liveness.ended("tm-1");
        pings.remove(0).accept(new PingResult.Refused("connection refused"));
        main.advance(1_000);

        assertThat(liveness.isSuspected("tm-1")).isFalse();
        assertThat(pings).as("no retry").isEmpty();
        assertThat(lost).isEmpty();
    }
}
