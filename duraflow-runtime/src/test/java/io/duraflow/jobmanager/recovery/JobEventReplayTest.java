package io.duraflow.jobmanager.recovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.duraflow.api.JobBuilder;
import io.duraflow.api.connectors.SequenceSource;
import io.duraflow.api.types.Types;
import io.duraflow.jobmanager.events.proto.CoordinatorState;
import io.duraflow.jobmanager.events.proto.ExecutionFinished;
import io.duraflow.jobmanager.events.proto.ExecutionRef;
import io.duraflow.jobmanager.events.proto.ExecutionsReset;
import io.duraflow.jobmanager.events.proto.JobEvent;
import io.duraflow.jobmanager.events.proto.RunStarted;
import io.duraflow.jobmanager.events.proto.SplitsAssigned;
import io.duraflow.jobmanager.events.proto.VertexInitialized;
import io.duraflow.plan.JobGraph;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The state a job event log replays to (rule 1 of {@link RecoveryPlanner}), read directly rather
 * than through a plan: what the {@code RecoveryPlanner*Test} classes can only see through the
 * decisions.
 */
class JobEventReplayTest {
    private static final int SOURCE_NODE = 0;
    private static final ExecutionKey SOURCE_0 = new ExecutionKey(0, 0);
    private static final ExecutionKey SOURCE_1 = new ExecutionKey(0, 1);

    /** v0: source "numbers" (2 tasks, node 0) -> edge 0 -> v1: sum by key (decided at runtime). */
    private static JobGraph wordCount() {
        JobBuilder job = new JobBuilder("word-count");
        job.fromSource("numbers", new SequenceSource(0, 1_000, 4)).parallelism(2)
                .keyBy(n -> n % 10, Types.LONG).reduce(Long::sum)
                .collect("sums");
        return JobGraph.compile(job.plan(), 2);
    }

    @Test
    void onlyTheEventsAfterTheLastRunStartedAreReplayed() {
        List<JobEvent> events = List.of(init(1, 2, 0, 5, 10), finished(0, 0, 0),
                JobEvent.newBuilder().setRunStarted(RunStarted.newBuilder().setReason("full restart")).build(),
                init(1, 3, 0, 3, 6, 10));

        JobEventReplay replayed = JobEventReplay.replay(wordCount(), events);

        assertThat(replayed.eventCount()).isEqualTo(1);
        assertThat(replayed.plans().get(1).parallelism()).isEqualTo(3);
        assertThat(replayed.finished()).isEmpty();
        assertThat(replayed.highestAttempt(SOURCE_0)).isNull();
    }

    @Test
    void splitsAreReadAsOfTheNodesLastCoordinatorState() {
        List<JobEvent> events = List.of(assigned(0, 0, "a"), state("s1"), assigned(0, 0, "b"), assigned(1, 0, "c"),
                state("s2"), assigned(0, 0, "d"));

        JobEventReplay replayed = JobEventReplay.replay(wordCount(), events);

        assertThat(strings(replayed.committedSplits(SOURCE_0))).containsExactly("a", "b");
        assertThat(strings(replayed.committedSplits(SOURCE_1))).containsExactly("c");
        assertThat(replayed.splitsChangedAfterState(SOURCE_0)).isTrue();
        assertThat(replayed.splitsChangedAfterState(SOURCE_1)).isFalse();
        assertThat(new String(replayed.enumeratorStates().get(SOURCE_NODE), StandardCharsets.UTF_8)).isEqualTo("s2");
    }

    @Test
    void aResetDropsTheOlderAttemptsFinishAndSplitsAndALateFinishDoesNotReviveIt() {
        List<JobEvent> events = List.of(assigned(0, 0, "a"), state("s1"), finished(0, 0, 0), reset(0, 0, 1),
                finished(0, 0, 0));

        JobEventReplay replayed = JobEventReplay.replay(wordCount(), events);

        assertThat(replayed.finished()).doesNotContainKey(SOURCE_0);
        assertThat(replayed.highestAttempt(SOURCE_0)).isEqualTo(1);
        // The reset gave the splits back after the last state: that state no longer tells them.
        assertThat(replayed.splitsChangedAfterState(SOURCE_0)).isTrue();
        assertThat(replayed.notes()).containsExactly("ignored a late finish of v0/0#0: it was reset to #1");
    }

    @Test
    void aVertexInitializedAgainWithAnotherLayoutLosesItsFinishes() {
        List<JobEvent> events = List.of(init(1, 2, 0, 5, 10), finished(1, 0, 0), finished(1, 1, 0),
                init(1, 1, 0, 10));

        JobEventReplay replayed = JobEventReplay.replay(wordCount(), events);

        assertThat(replayed.finished()).isEmpty();
        assertThat(replayed.parallelism(1)).isEqualTo(1);
        // Attempt numbers seen before stay seen: a new attempt must not repeat them.
        assertThat(replayed.highestAttempt(new ExecutionKey(1, 1))).isEqualTo(0);
        assertThat(replayed.notes()).singleElement().asString().contains("v1 was initialized again with parallelism 1");
    }

    @Test
    void aSourceWhoseEnumeratorCannotSnapshotHasNoState() {
        List<JobEvent> events = List.of(assigned(0, 0, "a"), state("s1"), assigned(1, 0, "b"),
                JobEvent.newBuilder().setCoordinatorState(CoordinatorState.newBuilder().setNodeId(SOURCE_NODE)
                        .setCheckpointId(-1).setSnapshotUnsupported(true)).build());

        JobEventReplay replayed = JobEventReplay.replay(wordCount(), events);

        assertThat(replayed.withoutSnapshot(SOURCE_NODE)).isTrue();
        assertThat(replayed.enumeratorStates()).isEmpty();
        assertThat(strings(replayed.committedSplits(SOURCE_1))).containsExactly("b");
    }

    @Test
    void anEventForAVertexWhoseParallelismWasNeverDecidedIsMalformed() {
        assertThatThrownBy(() -> JobEventReplay.replay(wordCount(), List.of(finished(1, 0, 0))))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("job event #0 (ExecutionFinished) names v1/0, but no earlier VertexInitialized decided"
                        + " the parallelism of vertex 1; the event log does not fit the job graph");
    }

    // ------------------------------------------------------------------ events, by hand

    private static JobEvent init(int vertex, int parallelism, int... bounds) {
        VertexInitialized.Builder event = VertexInitialized.newBuilder().setVertex(vertex).setParallelism(parallelism);
        Arrays.stream(bounds).forEach(event::addRangeBounds);
        return JobEvent.newBuilder().setVertexInitialized(event).build();
    }

    /** A finish without partitions: the replay does not check what the graph's edges need. */
    private static JobEvent finished(int vertex, int subtask, int attempt) {
        return JobEvent.newBuilder().setExecutionFinished(ExecutionFinished.newBuilder().setVertex(vertex)
                .setSubtask(subtask).setAttempt(attempt).setTmId("tm-a")).build();
    }

    private static JobEvent reset(int vertex, int subtask, int newAttempt) {
        return JobEvent.newBuilder().setExecutionsReset(ExecutionsReset.newBuilder().addExecutions(
                ExecutionRef.newBuilder().setVertex(vertex).setSubtask(subtask).setNewAttempt(newAttempt))).build();
    }

    private static JobEvent assigned(int subtask, int attempt, String... splits) {
        SplitsAssigned.Builder event = SplitsAssigned.newBuilder().setNodeId(SOURCE_NODE).setSubtask(subtask)
                .setAttempt(attempt);
        for (String split : splits) {
            event.addSplits(ByteString.copyFromUtf8(split));
        }
        return JobEvent.newBuilder().setSplitsAssigned(event).build();
    }

    private static JobEvent state(String state) {
        return JobEvent.newBuilder().setCoordinatorState(CoordinatorState.newBuilder().setNodeId(SOURCE_NODE)
                .setCheckpointId(-1).setState(ByteString.copyFromUtf8(state))).build();
    }

    private static List<String> strings(List<byte[]> splits) {
        return splits.stream().map(split -> new String(split, StandardCharsets.UTF_8)).toList();
    }
}
