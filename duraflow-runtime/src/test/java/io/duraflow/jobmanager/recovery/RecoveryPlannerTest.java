package io.duraflow.jobmanager.recovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.duraflow.api.JobBuilder;
import io.duraflow.api.Flow;
import io.duraflow.api.connectors.SequenceSource;
import io.duraflow.api.types.Types;
import io.duraflow.jobmanager.events.proto.Collected;
import io.duraflow.jobmanager.events.proto.CoordinatorState;
import io.duraflow.jobmanager.events.proto.ExecutionFinished;
import io.duraflow.jobmanager.events.proto.ExecutionRef;
import io.duraflow.jobmanager.events.proto.ExecutionsReset;
import io.duraflow.jobmanager.events.proto.JobEvent;
import io.duraflow.jobmanager.events.proto.ProducedPartition;
import io.duraflow.jobmanager.events.proto.RunStarted;
import io.duraflow.jobmanager.events.proto.SplitsAssigned;
import io.duraflow.jobmanager.events.proto.SplitsReturned;
import io.duraflow.jobmanager.events.proto.VertexInitialized;
import io.duraflow.plan.JobGraph;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The decisions of batch job recovery, from hand-written event logs: what is taken over as
 * finished, what runs again under which attempt, which splits go back and which partitions go.
 */
class RecoveryPlannerTest {

    // ------------------------------------------------------------------ job graphs

    /** v0: source "numbers" (2 tasks, node 0) -> edge 0 -> v1: sum by key (decided at runtime) -> collect. */
    private static JobGraph wordCount() {
        return wordCount(2);
    }

    private static JobGraph wordCount(int sourceParallelism) {
        JobBuilder job = new JobBuilder("word-count");
        job.fromSource("numbers", new SequenceSource(0, 1_000, 4)).parallelism(sourceParallelism)
                .keyBy(n -> n % 10, Types.LONG).reduce(Long::sum)
                .collect("sums");
        return JobGraph.compile(job.plan(), 2);
    }

    /**
     * v0: source (2 tasks) -> edge 0 -> v1: reduce (2 tasks, fixed) -> edge 1 -> v2: reduce
     * (decided at runtime) -> collect.
     */
    private static JobGraph threeStagesFixedMiddle() {
        JobBuilder job = new JobBuilder("three-stages");
        job.fromSource("numbers", new SequenceSource(0, 1_000, 4)).parallelism(2)
                .keyBy(n -> n % 10, Types.LONG).reduce(Long::sum).parallelism(2)
                .keyBy(n -> n % 3, Types.LONG).reduce(Long::sum)
                .collect("sums");
        return JobGraph.compile(job.plan(), 2);
    }

    /** As {@link #threeStagesFixedMiddle()} but the middle's parallelism is decided at runtime too. */
    private static JobGraph threeStagesAdaptive() {
        JobBuilder job = new JobBuilder("three-stages");
        job.fromSource("numbers", new SequenceSource(0, 1_000, 4)).parallelism(2)
                .keyBy(n -> n % 10, Types.LONG).reduce(Long::sum)
                .keyBy(n -> n % 3, Types.LONG).reduce(Long::sum)
                .collect("sums");
        return JobGraph.compile(job.plan(), 2);
    }

    /** v0: source (2 tasks) feeding two reduces: edge 0 -> v1, edge 1 -> v2, both decided at runtime. */
    private static JobGraph twoBranches() {
        JobBuilder job = new JobBuilder("branches");
        Flow<Long> numbers = job.fromSource("numbers", new SequenceSource(0, 1_000, 4)).parallelism(2);
        numbers.keyBy(n -> n % 10, Types.LONG).reduce(Long::sum).collect("tens");
        numbers.keyBy(n -> n % 7, Types.LONG).reduce(Long::sum).collect("sevens");
        return JobGraph.compile(job.plan(), 2);
    }

    private static final int SOURCE_NODE = 0;

    @Test
    void graphsHaveTheShapesTheTestsAssume() {
        JobGraph wordCount = wordCount();
        assertThat(wordCount.vertices()).hasSize(2);
        assertThat(wordCount.vertex(0).isSource()).isTrue();
        assertThat(wordCount.vertex(0).head().id()).isEqualTo(SOURCE_NODE);
        assertThat(wordCount.vertex(1).parallelism()).isEqualTo(-1);
        assertThat(wordCount.vertex(0).outputs()).containsExactly(0);
        JobGraph fixed = threeStagesFixedMiddle();
        assertThat(fixed.vertices()).extracting(v -> v.parallelism()).containsExactly(2, 2, -1);
        assertThat(fixed.edges()).extracting(e -> e.producer() + "->" + e.consumer()).containsExactly("0->1", "1->2");
        assertThat(threeStagesAdaptive().vertices()).extracting(v -> v.parallelism()).containsExactly(2, -1, -1);
        assertThat(twoBranches().vertex(0).outputs()).containsExactly(0, 1);
    }

    // ------------------------------------------------------------------ events, by hand

    private static String pid(int vertex, int subtask, int attempt, int edge) {
        return "job-v" + vertex + "-s" + subtask + "-a" + attempt + "-e" + edge;
    }

    private static JobEvent init(int vertex, int parallelism, int... bounds) {
        VertexInitialized.Builder event = VertexInitialized.newBuilder().setVertex(vertex).setParallelism(parallelism);
        Arrays.stream(bounds).forEach(event::addRangeBounds);
        return JobEvent.newBuilder().setTimestampMs(1).setVertexInitialized(event).build();
    }

    /** An attempt finished on {@code tm}, writing one partition per given edge. */
    private static JobEvent finished(int vertex, int subtask, int attempt, String tm, int... edges) {
        ExecutionFinished.Builder event = ExecutionFinished.newBuilder().setVertex(vertex).setSubtask(subtask)
                .setAttempt(attempt).setTmId(tm).setTmAddress(tm + ".local:6122").setRecordsIn(100 + subtask)
                .setRecordsOut(10 + subtask);
        for (int edge : edges) {
            event.addPartitions(ProducedPartition.newBuilder().setEdgeId(edge)
                    .setPartitionId(pid(vertex, subtask, attempt, edge)).addSubpartitionBytes(40).addSubpartitionBytes(2)
                    .setRecords(7));
        }
        return JobEvent.newBuilder().setTimestampMs(2).setExecutionFinished(event).build();
    }

    /** A collecting sink finished: no partitions, collected records. */
    private static JobEvent sinkFinished(int vertex, int subtask, int attempt, String tm, String data) {
        return JobEvent.newBuilder().setTimestampMs(2).setExecutionFinished(ExecutionFinished.newBuilder()
                .setVertex(vertex).setSubtask(subtask).setAttempt(attempt).setTmId(tm).setTmAddress(tm + ".local:6122")
                .addCollected(Collected.newBuilder().setName("sums").setSubtask(subtask).setRecords(1)
                        .setData(ByteString.copyFromUtf8(data)))).build();
    }

    private static JobEvent reset(int vertex, int subtask, int newAttempt) {
        return JobEvent.newBuilder().setTimestampMs(3).setExecutionsReset(ExecutionsReset.newBuilder()
                .addExecutions(ExecutionRef.newBuilder().setVertex(vertex).setSubtask(subtask)
                        .setNewAttempt(newAttempt))
                .setReason("test")).build();
    }

    private static JobEvent assigned(int node, int subtask, int attempt, String... splits) {
        SplitsAssigned.Builder event = SplitsAssigned.newBuilder().setNodeId(node).setSubtask(subtask)
                .setAttempt(attempt);
        for (String split : splits) {
            event.addSplits(ByteString.copyFromUtf8(split));
        }
        return JobEvent.newBuilder().setTimestampMs(4).setSplitsAssigned(event).build();
    }

    private static JobEvent returned(int node, int subtask, int count) {
        return JobEvent.newBuilder().setTimestampMs(5).setSplitsReturned(SplitsReturned.newBuilder().setNodeId(node)
                .setSubtask(subtask).setCount(count)).build();
    }

    private static JobEvent state(int node, String state) {
        return JobEvent.newBuilder().setTimestampMs(6).setCoordinatorState(CoordinatorState.newBuilder()
                .setNodeId(node).setCheckpointId(-1).setState(ByteString.copyFromUtf8(state))).build();
    }

    /** The coordinator state after a split event of a source whose enumerator cannot snapshot. */
    private static JobEvent noSnapshot(int node) {
        return JobEvent.newBuilder().setTimestampMs(6).setCoordinatorState(CoordinatorState.newBuilder()
                .setNodeId(node).setCheckpointId(-1).setSnapshotUnsupported(true)).build();
    }

    /** As the JobMaster logs an assignment of a source whose enumerator cannot snapshot. */
    private static List<JobEvent> assignedWithoutSnapshot(int subtask, int attempt, String... splits) {
        return List.of(assigned(SOURCE_NODE, subtask, attempt, splits), noSnapshot(SOURCE_NODE));
    }

    /** As the JobMaster logs an assignment: the splits, then the enumerator's state after it. */
    private static List<JobEvent> assignedWithState(int subtask, int attempt, String state, String... splits) {
        return List.of(assigned(SOURCE_NODE, subtask, attempt, splits), state(SOURCE_NODE, state));
    }

    private static List<JobEvent> log(Object... parts) {
        List<JobEvent> events = new ArrayList<>();
        for (Object part : parts) {
            if (part instanceof JobEvent event) {
                events.add(event);
            } else {
                @SuppressWarnings("unchecked")
                List<JobEvent> list = (List<JobEvent>) part;
                events.addAll(list);
            }
        }
        return events;
    }

    /** partition id -> TaskManager, as the TaskManagers report what they kept. */
    private static Map<String, String> held(String... pidThenTm) {
        Map<String, String> held = new HashMap<>();
        for (int i = 0; i < pidThenTm.length; i += 2) {
            held.put(pidThenTm[i], pidThenTm[i + 1]);
        }
        return held;
    }

    private static ExecutionKey key(int vertex, int subtask) {
        return new ExecutionKey(vertex, subtask);
    }

    private static List<String> strings(List<byte[]> splits) {
        return splits.stream().map(b -> new String(b, StandardCharsets.UTF_8)).toList();
    }

    /** Both sources of word count got a split and finished on tm-1 and tm-2; the reduce got parallelism 2. */
    private static List<JobEvent> sourcesFinished() {
        return log(assignedWithState(0, 0, "enum-1", "split-a"), assignedWithState(1, 0, "enum-2", "split-b"),
                finished(0, 0, 0, "tm-1", 0), finished(0, 1, 0, "tm-2", 0), init(1, 2, 0, 64, 128));
    }

    private static final Map<String, String> SOURCE_OUTPUTS = Map.of(pid(0, 0, 0, 0), "tm-1", pid(0, 1, 0, 0), "tm-2");

    // ------------------------------------------------------------------ scenarios

    @Test
    void sourcesFinishedAndMiddleRunningKeepsTheSourcesAndRunsTheMiddleAgain() {
        RecoveryPlan plan = RecoveryPlanner.plan(wordCount(), sourcesFinished(), SOURCE_OUTPUTS);

        assertThat(plan.restored()).containsOnlyKeys(key(0, 0), key(0, 1));
        RestoredExecution first = plan.restored().get(key(0, 0));
        assertThat(first.attempt()).isZero();
        assertThat(first.tmId()).isEqualTo("tm-1");
        assertThat(first.tmAddress()).isEqualTo("tm-1.local:6122");
        assertThat(first.partitions()).extracting(ProducedPartition::getPartitionId).containsExactly(pid(0, 0, 0, 0));
        assertThat(first.partitions().get(0).getSubpartitionBytesList()).containsExactly(40L, 2L);
        assertThat(first.recordsIn()).isEqualTo(100);
        assertThat(first.recordsOut()).isEqualTo(10);
        assertThat(plan.restored().get(key(0, 1)).tmId()).isEqualTo("tm-2");
        // The reduce was deployed as #0 right after it was initialized: it runs as #1.
        assertThat(plan.nextAttempts()).containsExactly(Map.entry(key(1, 0), 1), Map.entry(key(1, 1), 1));
        assertThat(plan.enumeratorStates()).containsOnlyKeys(SOURCE_NODE);
        assertThat(new String(plan.enumeratorStates().get(SOURCE_NODE), StandardCharsets.UTF_8)).isEqualTo("enum-2");
        assertThat(plan.splitsToReturn()).isEmpty();
        assertThat(plan.partitionsToRelease()).isEmpty();
        assertThat(plan.notes()).contains("v0/0#0 restored on tm-1", "v0/1#0 restored on tm-2",
                "v1/0 runs again as #1: it did not finish", "v1/1 runs again as #1: it did not finish");
        assertThat(plan.notes().get(0)).startsWith("replayed 7 events: 2 executions restored, 2 to run");
    }

    @Test
    void everythingFinishedButOneSinkRunsOnlyThatSink() {
        List<JobEvent> events = log(sourcesFinished(), init(1, 3, 0, 40, 80, 128),
                sinkFinished(1, 0, 0, "tm-1", "zero"), sinkFinished(1, 2, 0, "tm-2", "two"));
        RecoveryPlan plan = RecoveryPlanner.plan(wordCount(), events, SOURCE_OUTPUTS);

        assertThat(plan.restored()).containsOnlyKeys(key(0, 0), key(0, 1), key(1, 0), key(1, 2));
        assertThat(plan.restored().get(key(1, 2)).collected()).extracting(c -> c.getData().toStringUtf8())
                .containsExactly("two");
        assertThat(plan.restored().get(key(1, 2)).partitions()).isEmpty();
        assertThat(plan.nextAttempts()).containsExactly(Map.entry(key(1, 1), 1));
    }

    @Test
    void aWholeFinishedJobIsRestoredEntirely() {
        List<JobEvent> events = log(sourcesFinished(), sinkFinished(1, 0, 0, "tm-1", "a"),
                sinkFinished(1, 1, 0, "tm-2", "b"));
        RecoveryPlan plan = RecoveryPlanner.plan(wordCount(), events, SOURCE_OUTPUTS);

        assertThat(plan.restored()).hasSize(4);
        assertThat(plan.nextAttempts()).isEmpty();
        assertThat(plan.partitionsToRelease()).isEmpty();
    }

    @Test
    void aPartitionLostWhileTheJobManagerWasAwayRerunsOnlyItsProducerAndTheUnfinished() {
        JobGraph graph = threeStagesFixedMiddle();
        List<JobEvent> events = log(assignedWithState(0, 0, "e1", "a"), assignedWithState(1, 0, "e2", "b"),
                finished(0, 0, 0, "tm-1", 0), finished(0, 1, 0, "tm-2", 0), init(1, 2, 0, 64, 128),
                finished(1, 0, 0, "tm-1", 1), finished(1, 1, 0, "tm-2", 1), init(2, 2, 0, 60, 128),
                sinkFinished(2, 0, 0, "tm-2", "done"));
        // tm-1 came back without v1/0's partition (say, its disk was wiped); everything else is there.
        Map<String, String> available = held(pid(0, 0, 0, 0), "tm-1", pid(0, 1, 0, 0), "tm-2",
                pid(1, 1, 0, 1), "tm-2");

        RecoveryPlan plan = RecoveryPlanner.plan(graph, events, available);

        assertThat(plan.nextAttempts()).containsExactly(Map.entry(key(1, 0), 1), Map.entry(key(2, 1), 1));
        assertThat(plan.restored()).containsOnlyKeys(key(0, 0), key(0, 1), key(1, 1), key(2, 0));
        assertThat(plan.splitsToReturn()).isEmpty();
        assertThat(plan.partitionsToRelease()).isEmpty();
        assertThat(plan.notes()).contains("v1/0 runs again as #1: its partition " + pid(1, 0, 0, 1)
                + " on tm-1 is lost");
    }

    @Test
    void aLostSourcePartitionStillNeededRerunsTheSourceAndGivesItsSplitsBack() {
        List<JobEvent> events = log(sourcesFinished(), sinkFinished(1, 0, 0, "tm-1", "zero"));
        Map<String, String> available = held(pid(0, 0, 0, 0), "tm-1");

        RecoveryPlan plan = RecoveryPlanner.plan(wordCount(), events, available);

        assertThat(plan.restored()).containsOnlyKeys(key(0, 0), key(1, 0));
        assertThat(plan.nextAttempts()).containsExactly(Map.entry(key(0, 1), 1), Map.entry(key(1, 1), 1));
        assertThat(plan.splitsToReturn()).containsOnlyKeys(SOURCE_NODE);
        assertThat(plan.splitsToReturn().get(SOURCE_NODE)).containsOnlyKeys(1);
        assertThat(strings(plan.splitsToReturn().get(SOURCE_NODE).get(1))).containsExactly("split-b");
    }

    @Test
    void aProducerWithALostPartitionIsNotRerunWhenAllItsConsumersFinished() {
        List<JobEvent> events = log(sourcesFinished(), sinkFinished(1, 0, 0, "tm-1", "a"),
                sinkFinished(1, 1, 0, "tm-2", "b"));
        Map<String, String> available = held(pid(0, 0, 0, 0), "tm-1"); // v0/1's output is gone

        RecoveryPlan plan = RecoveryPlanner.plan(wordCount(), events, available);

        assertThat(plan.restored()).containsOnlyKeys(key(0, 0), key(0, 1), key(1, 0), key(1, 1));
        assertThat(plan.nextAttempts()).isEmpty();
        assertThat(plan.splitsToReturn()).isEmpty();
        assertThat(plan.notes()).contains("v0/1#0 restored on tm-2 (its partition " + pid(0, 1, 0, 0)
                + " on tm-2 is lost, but every consumer finished)");
    }

    @Test
    void aLateFinishOfAnOldAttemptAfterAResetIsIgnored() {
        List<JobEvent> events = log(sourcesFinished(), finished(1, 0, 0, "tm-1"),
                // v1/0 was reset (say its TaskManager was lost), then the old attempt's finish arrived late.
                reset(1, 0, 1), sinkFinished(1, 0, 0, "tm-1", "stale"), sinkFinished(1, 1, 0, "tm-2", "b"));

        RecoveryPlan plan = RecoveryPlanner.plan(wordCount(), events, SOURCE_OUTPUTS);

        assertThat(plan.restored()).doesNotContainKey(key(1, 0)).containsKey(key(1, 1));
        assertThat(plan.nextAttempts()).containsExactly(Map.entry(key(1, 0), 2));
        assertThat(plan.notes()).contains("ignored a late finish of v1/0#0: it was reset to #1",
                "v1/0 runs again as #2: it did not finish");
    }

    @Test
    void aResetDropsAnEarlierFinishAndTheNewAttemptsFinishCounts() {
        List<JobEvent> events = log(sourcesFinished(), sinkFinished(1, 0, 0, "tm-1", "old"), reset(1, 0, 1));
        RecoveryPlan dropped = RecoveryPlanner.plan(wordCount(), events, SOURCE_OUTPUTS);
        assertThat(dropped.restored()).doesNotContainKey(key(1, 0));
        assertThat(dropped.nextAttempts()).containsEntry(key(1, 0), 2);

        events.add(sinkFinished(1, 0, 1, "tm-2", "new"));
        events.add(sinkFinished(1, 0, 0, "tm-1", "older still")); // older than the recorded #1: ignored
        RecoveryPlan restored = RecoveryPlanner.plan(wordCount(), events, SOURCE_OUTPUTS);
        RestoredExecution execution = restored.restored().get(key(1, 0));
        assertThat(execution.attempt()).isEqualTo(1);
        assertThat(execution.tmId()).isEqualTo("tm-2");
        assertThat(execution.collected()).extracting(c -> c.getData().toStringUtf8()).containsExactly("new");
    }

    @Test
    void aLateFinishOlderThanTheRecordedOneIsIgnoredEvenWithoutAReset() {
        List<JobEvent> events = log(sourcesFinished(), sinkFinished(1, 0, 1, "tm-2", "new"),
                sinkFinished(1, 0, 0, "tm-1", "old"));
        RecoveryPlan plan = RecoveryPlanner.plan(wordCount(), events, SOURCE_OUTPUTS);
        assertThat(plan.restored().get(key(1, 0)).attempt()).isEqualTo(1);
        assertThat(plan.restored().get(key(1, 0)).tmId()).isEqualTo("tm-2");
        assertThat(plan.notes()).contains("ignored a late finish of v1/0#0: #1 finished already");
    }

    @Test
    void aConsumerWithoutAPlanNeedsTheLostPartitionsOfItsProducers() {
        // The middle has a fixed parallelism but was never initialized: it has not run, so it needs
        // all source outputs, and the source whose output is gone runs again.
        List<JobEvent> events = log(finished(0, 0, 0, "tm-1", 0), finished(0, 1, 0, "tm-2", 0));
        RecoveryPlan plan = RecoveryPlanner.plan(threeStagesFixedMiddle(), events, held(pid(0, 0, 0, 0), "tm-1"));
        assertThat(plan.restored()).containsOnlyKeys(key(0, 0));
        assertThat(plan.nextAttempts()).containsExactly(Map.entry(key(0, 1), 1), Map.entry(key(1, 0), 0),
                Map.entry(key(1, 1), 0));
    }

    @Test
    void theDecidedParallelismAndRangesAreKept() {
        List<JobEvent> events = log(sourcesFinished(), init(1, 3, 0, 10, 50, 128));
        RecoveryPlan plan = RecoveryPlanner.plan(wordCount(), events, SOURCE_OUTPUTS);

        assertThat(plan.vertices()).containsOnlyKeys(1);
        assertThat(plan.vertices().get(1)).isEqualTo(new VertexPlan(1, 3, new int[] {0, 10, 50, 128}));
        assertThat(plan.vertices().get(1).rangeBounds()).containsExactly(0, 10, 50, 128);
        assertThat(plan.nextAttempts()).containsOnlyKeys(key(1, 0), key(1, 1), key(1, 2));
    }

    @Test
    void aReinitializationWithAnotherLayoutDropsTheVertexFinishedExecutions() {
        List<JobEvent> same = log(sourcesFinished(), sinkFinished(1, 0, 0, "tm-1", "a"), init(1, 2, 0, 64, 128));
        assertThat(RecoveryPlanner.plan(wordCount(), same, SOURCE_OUTPUTS).restored()).containsKey(key(1, 0));

        List<JobEvent> other = log(sourcesFinished(), sinkFinished(1, 0, 0, "tm-1", "a"), init(1, 3, 0, 5, 9, 128));
        RecoveryPlan plan = RecoveryPlanner.plan(wordCount(), other, SOURCE_OUTPUTS);
        assertThat(plan.vertices().get(1).parallelism()).isEqualTo(3);
        assertThat(plan.restored()).containsOnlyKeys(key(0, 0), key(0, 1));
        assertThat(plan.nextAttempts()).containsExactly(Map.entry(key(1, 0), 1), Map.entry(key(1, 1), 1),
                Map.entry(key(1, 2), 1));
    }

    @Test
    void aSourceSubtaskDeployedBeforeItAskedForASplitNeverRepeatsItsAttemptNumber() {
        // The JobMaster logs VertexInitialized for a source before deploying its subtasks as #0.
        List<JobEvent> events = log(init(0, 2, 0, 1), assignedWithState(0, 0, "enum-1", "split-a"),
                finished(0, 0, 0, "tm-1", 0));

        RecoveryPlan plan = RecoveryPlanner.plan(wordCount(), events, Map.of(pid(0, 0, 0, 0), "tm-1"));

        assertThat(plan.restored()).containsOnlyKeys(key(0, 0));
        assertThat(plan.nextAttempts()).containsExactly(Map.entry(key(0, 1), 1));
    }

    @Test
    void eventsBeforeARunStartedBelongToAnAbandonedRunAndAreIgnored() {
        List<JobEvent> events = new ArrayList<>(sourcesFinished());
        events.add(JobEvent.newBuilder().setRunStarted(RunStarted.newBuilder().setReason("its recovery failed"))
                .build());
        events.addAll(log(assignedWithState(0, 0, "enum-3", "split-a"), finished(0, 0, 0, "tm-2", 0)));

        RecoveryPlan plan = RecoveryPlanner.plan(wordCount(), events, Map.of(pid(0, 0, 0, 0), "tm-2",
                pid(0, 1, 0, 0), "tm-2"));

        assertThat(plan.restored()).as("only the new run's finish counts").containsOnlyKeys(key(0, 0));
        assertThat(plan.restored().get(key(0, 0)).tmId()).isEqualTo("tm-2");
        assertThat(plan.vertices()).as("the old run's decided parallelism is gone").isEmpty();
        assertThat(new String(plan.enumeratorStates().get(SOURCE_NODE), StandardCharsets.UTF_8)).isEqualTo("enum-3");
        assertThat(plan.nextAttempts()).containsExactly(Map.entry(key(0, 1), 0));
        assertThat(plan.notes().get(0)).startsWith("replayed 3 events");
    }

    @Test
    void anEmptyLogRestoresNothingAndRunsEverythingKnownAsAttemptZero() {
        RecoveryPlan plan = RecoveryPlanner.plan(wordCount(), List.of(), Map.of());
        assertThat(plan.restored()).isEmpty();
        assertThat(plan.vertices()).isEmpty();
        assertThat(plan.enumeratorStates()).isEmpty();
        assertThat(plan.splitsToReturn()).isEmpty();
        assertThat(plan.partitionsToRelease()).isEmpty();
        // The reduce's parallelism is not decided yet: it is scheduled as usual, with no entry here.
        assertThat(plan.nextAttempts()).containsExactly(Map.entry(key(0, 0), 0), Map.entry(key(0, 1), 0));
        assertThat(plan.notes()).contains("v0/0 runs as #0: it never ran");

        RecoveryPlan fixed = RecoveryPlanner.plan(threeStagesFixedMiddle(), List.of(), Map.of());
        assertThat(fixed.nextAttempts()).containsOnlyKeys(key(0, 0), key(0, 1), key(1, 0), key(1, 1));
        assertThat(fixed.nextAttempts().values()).containsOnly(0);
    }

    @Test
    void splitsOfRerunSourceSubtasksGoBackAndThoseOfRestoredOnesDoNot() {
        JobGraph graph = wordCount(3);
        List<JobEvent> events = log(
                // s0 read a and b and finished: restored, its splits were consumed.
                assignedWithState(0, 0, "st1", "a"), assignedWithState(0, 0, "st2", "b"),
                // s1 holds c while running.
                assignedWithState(1, 0, "st3", "c"),
                // s2 got d, failed: d went back (SplitsReturned clears it), it was reset and #1 got e.
                assignedWithState(2, 0, "st4", "d"), returned(SOURCE_NODE, 2, 1), state(SOURCE_NODE, "st5"),
                reset(0, 2, 1), assignedWithState(2, 1, "st6", "e"),
                finished(0, 0, 0, "tm-1", 0));
        RecoveryPlan plan = RecoveryPlanner.plan(graph, events, held(pid(0, 0, 0, 0), "tm-1"));

        assertThat(plan.restored()).containsOnlyKeys(key(0, 0));
        assertThat(plan.nextAttempts()).containsExactly(Map.entry(key(0, 1), 1), Map.entry(key(0, 2), 2));
        Map<Integer, List<byte[]>> toReturn = plan.splitsToReturn().get(SOURCE_NODE);
        assertThat(toReturn).containsOnlyKeys(1, 2);
        assertThat(strings(toReturn.get(1))).containsExactly("c");
        assertThat(strings(toReturn.get(2))).containsExactly("e");
        assertThat(new String(plan.enumeratorStates().get(SOURCE_NODE), StandardCharsets.UTF_8)).isEqualTo("st6");
        assertThat(plan.notes()).contains("1 splits of v0/1 go back to the enumerator of 'numbers' (node 0)");
        assertThat(plan.restoredSplits()).containsOnlyKeys(SOURCE_NODE);
        assertThat(plan.restoredSplits().get(SOURCE_NODE)).containsOnlyKeys(0);
        assertThat(strings(plan.restoredSplits().get(SOURCE_NODE).get(0))).containsExactly("a", "b");
    }

    @Test
    void splitsReturnedClearsWhatTheSubtaskHeld() {
        List<JobEvent> events = log(assignedWithState(0, 0, "st1", "a", "b"), returned(SOURCE_NODE, 0, 2),
                state(SOURCE_NODE, "st2"));
        RecoveryPlan plan = RecoveryPlanner.plan(wordCount(), events, Map.of());
        assertThat(plan.splitsToReturn()).isEmpty();
        assertThat(plan.nextAttempts()).containsEntry(key(0, 0), 1);
    }

    @Test
    void splitBookkeepingIsReadAsOfTheLastEnumeratorState() {
        // The log ends torn: an assignment without the state after it. The last state still has
        // split c in the enumerator, so c must not be given back a second time...
        List<JobEvent> tornAssignment = log(assignedWithState(0, 0, "st1", "a"), assigned(SOURCE_NODE, 0, 0, "c"));
        RecoveryPlan plan = RecoveryPlanner.plan(wordCount(), tornAssignment, Map.of());
        assertThat(strings(plan.splitsToReturn().get(SOURCE_NODE).get(0))).containsExactly("a");
        assertThat(new String(plan.enumeratorStates().get(SOURCE_NODE), StandardCharsets.UTF_8)).isEqualTo("st1");

        // ...and a return without the state after it: the last state does not have a, so a goes back.
        List<JobEvent> tornReturn = log(assignedWithState(0, 0, "st1", "a"), returned(SOURCE_NODE, 0, 1));
        RecoveryPlan plan2 = RecoveryPlanner.plan(wordCount(), tornReturn, Map.of());
        assertThat(strings(plan2.splitsToReturn().get(SOURCE_NODE).get(0))).containsExactly("a");

        // No state at all: a fresh enumerator has every split, nothing goes back.
        RecoveryPlan plan3 = RecoveryPlanner.plan(wordCount(), List.of(assigned(SOURCE_NODE, 0, 0, "a")), Map.of());
        assertThat(plan3.splitsToReturn()).isEmpty();
        assertThat(plan3.enumeratorStates()).isEmpty();
    }

    @Test
    void aRecoveringLeadersResetAndNewAssignmentsReplaceSplitsItGaveBack() {
        // First failover: s0 held a and ran again as #1. The recovering leader gave a back (without
        // logging SplitsReturned), logged the reset, and the enumerator handed a to s1.
        List<JobEvent> events = log(assignedWithState(0, 0, "st1", "a"), reset(0, 0, 1),
                assignedWithState(1, 0, "st2", "a"), finished(0, 1, 0, "tm-2", 0));
        RecoveryPlan plan = RecoveryPlanner.plan(wordCount(), events, held(pid(0, 1, 0, 0), "tm-2"));
        assertThat(plan.restored()).containsKey(key(0, 1));
        assertThat(plan.splitsToReturn()).isEmpty(); // a was read by the restored s1, once

        // Same, but the new attempt of s0 asked for splits itself: only its new ones go back.
        List<JobEvent> events2 = log(assignedWithState(0, 0, "st1", "a"), assignedWithState(0, 1, "st2", "a", "x"));
        RecoveryPlan plan2 = RecoveryPlanner.plan(wordCount(), events2, Map.of());
        assertThat(strings(plan2.splitsToReturn().get(SOURCE_NODE).get(0))).containsExactly("a", "x");
        assertThat(plan2.nextAttempts()).containsEntry(key(0, 0), 2);
    }

    @Test
    void aFinishedSourceWhoseSplitsChangedAfterTheLastStateRunsAgain() {
        List<JobEvent> events = log(assignedWithState(0, 0, "st1", "a"), finished(0, 0, 0, "tm-1", 0),
                assigned(SOURCE_NODE, 0, 0, "b"));
        RecoveryPlan plan = RecoveryPlanner.plan(wordCount(), events, held(pid(0, 0, 0, 0), "tm-1"));
        assertThat(plan.restored()).isEmpty();
        assertThat(plan.nextAttempts()).containsEntry(key(0, 0), 1);
        assertThat(strings(plan.splitsToReturn().get(SOURCE_NODE).get(0))).containsExactly("a");
        assertThat(plan.partitionsToRelease()).containsExactly(pid(0, 0, 0, 0));
    }

    @Test
    void staleAndUnknownPartitionsAreReleased() {
        JobGraph graph = twoBranches();
        List<JobEvent> events = log(finished(0, 0, 0, "tm-1", 0, 1), finished(0, 1, 0, "tm-2", 0, 1),
                init(1, 1, 0, 128), init(2, 1, 0, 128));
        Map<String, String> available = held(
                pid(0, 0, 0, 0), "tm-1", pid(0, 0, 0, 1), "tm-1", // v0/0 complete: kept
                pid(0, 1, 0, 1), "tm-2", // v0/1 lost its edge-0 output: it runs again, its edge-1 output goes
                pid(0, 1, 3, 0), "tm-2", // an attempt no finish recorded
                "job-v9-s0-a0-e0", "tm-3"); // nothing this job knows
        RecoveryPlan plan = RecoveryPlanner.plan(graph, events, available);

        assertThat(plan.restored()).containsOnlyKeys(key(0, 0));
        assertThat(plan.nextAttempts()).containsExactly(Map.entry(key(0, 1), 1), Map.entry(key(1, 0), 1),
                Map.entry(key(2, 0), 1));
        assertThat(plan.partitionsToRelease()).containsExactly("job-v0-s1-a0-e1", "job-v0-s1-a3-e0",
                "job-v9-s0-a0-e0");
        assertThat(plan.notes()).contains(
                "partition job-v0-s1-a0-e1 on tm-2 released: v0/1 runs again",
                "partition job-v0-s1-a3-e0 on tm-2 released: no recorded finished attempt produced it",
                "v0/1 runs again as #1: its partition job-v0-s1-a0-e0 on tm-2 is lost");
    }

    @Test
    void aPartitionOnAnotherTaskManagerThanRecordedIsNotTrusted() {
        Map<String, String> moved = held(pid(0, 0, 0, 0), "tm-1", pid(0, 1, 0, 0), "tm-7");
        RecoveryPlan plan = RecoveryPlanner.plan(wordCount(), sourcesFinished(), moved);
        assertThat(plan.restored()).containsOnlyKeys(key(0, 0));
        assertThat(plan.nextAttempts()).containsEntry(key(0, 1), 1);
        assertThat(plan.partitionsToRelease()).containsExactly(pid(0, 1, 0, 0));
    }

    @Test
    void aThreeStageJobWhoseMiddleFinishedPartially() {
        JobGraph graph = threeStagesAdaptive();
        List<JobEvent> events = log(assignedWithState(0, 0, "e1", "a", "b"), assignedWithState(1, 0, "e2", "c", "d"),
                finished(0, 0, 0, "tm-1", 0), finished(0, 1, 0, "tm-2", 0), init(1, 3, 0, 40, 90, 128),
                finished(1, 0, 0, "tm-1", 1), reset(1, 1, 1), finished(1, 2, 0, "tm-2", 1));
        Map<String, String> available = held(pid(0, 0, 0, 0), "tm-1", pid(0, 1, 0, 0), "tm-2",
                pid(1, 0, 0, 1), "tm-1", pid(1, 2, 0, 1), "tm-2");

        RecoveryPlan plan = RecoveryPlanner.plan(graph, events, available);

        assertThat(plan.restored()).containsOnlyKeys(key(0, 0), key(0, 1), key(1, 0), key(1, 2));
        assertThat(plan.nextAttempts()).containsExactly(Map.entry(key(1, 1), 2)); // the last stage is undecided
        assertThat(plan.vertices()).containsOnlyKeys(1);
        assertThat(plan.splitsToReturn()).isEmpty();
        assertThat(plan.partitionsToRelease()).isEmpty();

        // The middle's finished v1/2 lost its output: the last stage (no plan yet) needs it, so it runs again.
        Map<String, String> lost = new HashMap<>(available);
        lost.remove(pid(1, 2, 0, 1));
        RecoveryPlan plan2 = RecoveryPlanner.plan(graph, events, lost);
        assertThat(plan2.restored()).containsOnlyKeys(key(0, 0), key(0, 1), key(1, 0));
        assertThat(plan2.nextAttempts()).containsExactly(Map.entry(key(1, 1), 2), Map.entry(key(1, 2), 1));
    }

    @Test
    void theSamePlanFromTheSameInput() {
        List<JobEvent> events = log(sourcesFinished(), sinkFinished(1, 0, 0, "tm-1", "a"));
        Map<String, String> available = held(pid(0, 0, 0, 0), "tm-1", "job-v0-s0-a5-e0", "tm-1",
                "job-v0-s1-a5-e0", "tm-2");
        RecoveryPlan one = RecoveryPlanner.plan(wordCount(), events, available);
        RecoveryPlan two = RecoveryPlanner.plan(wordCount(), events, new java.util.TreeMap<>(available));
        assertThat(two.notes()).isEqualTo(one.notes());
        assertThat(two.nextAttempts()).isEqualTo(one.nextAttempts());
        assertThat(List.copyOf(two.partitionsToRelease())).isEqualTo(List.copyOf(one.partitionsToRelease()));
    }

    // ------------------------------------------------------------------ sources without snapshots

    /** Word count's sources, whose enumerator cannot snapshot, read a and b and finished; the reduce got 2 tasks. */
    private static List<JobEvent> sourcesWithoutSnapshotFinished() {
        return log(assignedWithoutSnapshot(0, 0, "a"), assignedWithoutSnapshot(1, 0, "b"),
                finished(0, 0, 0, "tm-1", 0), finished(0, 1, 0, "tm-2", 0), init(1, 2, 0, 64, 128));
    }

    @Test
    void aSourceWithoutSnapshotsWhoseSubtasksAllFinishedIsRestoredWhole() {
        RecoveryPlan plan = RecoveryPlanner.plan(wordCount(), sourcesWithoutSnapshotFinished(), SOURCE_OUTPUTS);

        assertThat(plan.restored()).containsOnlyKeys(key(0, 0), key(0, 1));
        assertThat(plan.nextAttempts()).containsOnlyKeys(key(1, 0), key(1, 1));
        assertThat(plan.enumeratorStates()).isEmpty();
        assertThat(plan.splitsToReturn()).isEmpty();
        assertThat(strings(plan.restoredSplits().get(SOURCE_NODE).get(0))).containsExactly("a");
        assertThat(strings(plan.restoredSplits().get(SOURCE_NODE).get(1))).containsExactly("b");
    }

    @Test
    void aSourceWithoutSnapshotsWithAnUnfinishedSubtaskRunsAgainWholeWithANewEnumerator() {
        List<JobEvent> events = log(assignedWithoutSnapshot(0, 0, "a"), assignedWithoutSnapshot(1, 0, "b"),
                assignedWithoutSnapshot(0, 0, "c"), finished(0, 0, 0, "tm-1", 0));
        Map<String, String> available = held(pid(0, 0, 0, 0), "tm-1");

        RecoveryPlan plan = RecoveryPlanner.plan(wordCount(), events, available);

        assertThat(plan.restored()).isEmpty();
        assertThat(plan.nextAttempts()).containsExactly(Map.entry(key(0, 0), 1), Map.entry(key(0, 1), 1));
        assertThat(plan.enumeratorStates()).as("a new enumerator").isEmpty();
        assertThat(plan.splitsToReturn()).as("a new enumerator has them all").isEmpty();
        assertThat(plan.restoredSplits()).isEmpty();
        assertThat(plan.partitionsToRelease()).containsExactly(pid(0, 0, 0, 0));
        assertThat(plan.notes()).contains(
                "v0/0 runs again as #1: the enumerator of 'numbers' cannot snapshot and v0/1 runs again",
                "v0/1 runs again as #1: it did not finish",
                "the enumerator of 'numbers' (node 0) cannot snapshot: a new one hands out every split to the 2"
                        + " subtasks of v0 again");
    }

    @Test
    void aLostPartitionOfASourceWithoutSnapshotsUnderAKeptConsumerCannotBeRecovered() {
        List<JobEvent> events = log(sourcesWithoutSnapshotFinished(), sinkFinished(1, 0, 0, "tm-1", "zero"));
        Map<String, String> available = held(pid(0, 0, 0, 0), "tm-1"); // v0/1's output is gone, v1/1 needs it

        assertThatThrownBy(() -> RecoveryPlanner.plan(wordCount(), events, available))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContainingAll("source 'numbers' (v0) must be read again", "cannot snapshot",
                        "v0/1 runs again", "v1/0 finished reading its old output", "must run again from the start");

        // With snapshots, the same log keeps v1/0 and re-runs only v0/1 on the splits it read.
        assertThat(RecoveryPlanner.plan(wordCount(), log(sourcesFinished(), sinkFinished(1, 0, 0, "tm-1", "zero")),
                available).nextAttempts()).containsOnlyKeys(key(0, 1), key(1, 1));
    }

    @Test
    void aLostPartitionOfASourceWithoutSnapshotsIsNotNeededWhenEveryConsumerFinished() {
        List<JobEvent> events = log(sourcesWithoutSnapshotFinished(), sinkFinished(1, 0, 0, "tm-1", "a"),
                sinkFinished(1, 1, 0, "tm-2", "b"));
        RecoveryPlan plan = RecoveryPlanner.plan(wordCount(), events, held(pid(0, 0, 0, 0), "tm-1"));
        assertThat(plan.restored()).hasSize(4);
        assertThat(plan.nextAttempts()).isEmpty();
    }

    @Test
    void theLastCoordinatorStateSaysWhetherTheSourceHasASnapshot() {
        List<JobEvent> events = log(assignedWithState(0, 0, "st1", "a"), assignedWithoutSnapshot(1, 0, "b"));
        RecoveryPlan plan = RecoveryPlanner.plan(wordCount(), events, Map.of());
        assertThat(plan.enumeratorStates()).isEmpty();
        assertThat(plan.splitsToReturn()).isEmpty();

        events.addAll(assignedWithState(1, 0, "st2", "c"));
        RecoveryPlan later = RecoveryPlanner.plan(wordCount(), events, Map.of());
        assertThat(new String(later.enumeratorStates().get(SOURCE_NODE), StandardCharsets.UTF_8)).isEqualTo("st2");
        assertThat(strings(later.splitsToReturn().get(SOURCE_NODE).get(1))).containsExactly("b", "c");
    }

    // ------------------------------------------------------------------ malformed logs

    @Test
    void eventsThatDoNotFitTheGraphAreRejected() {
        JobGraph graph = wordCount();
        assertMalformed(graph, List.of(finished(5, 0, 0, "tm-1")), "job event #0", "names vertex 5",
                "has 2 vertices");
        assertMalformed(graph, List.of(finished(0, 2, 0, "tm-1", 0)), "names subtask 2 of vertex 0, which has 2");
        assertMalformed(graph, log(sourcesFinished(), sinkFinished(1, 2, 0, "tm-1", "x")), "job event #7",
                "subtask 2 of vertex 1");
        assertMalformed(graph, List.of(sinkFinished(1, 0, 0, "tm-1", "x")),
                "no earlier VertexInitialized decided the parallelism of vertex 1");
        assertMalformed(graph, List.of(reset(-1, 0, 1)), "names vertex -1");
        assertMalformed(graph, List.of(reset(0, 0, -1)), "attempt -1");
        assertMalformed(graph, List.of(assigned(1, 0, 0, "a")), "plan node 1, which is not a source");
        assertMalformed(graph, List.of(state(7, "s")), "plan node 7, which is not a source");
        assertMalformed(graph, List.of(returned(0, 3, 1)), "subtask 3 of vertex 0");
        assertMalformed(graph, List.of(init(0, 5)), "fixes it at 2");
        assertMalformed(graph, List.of(init(1, 2, 0, 128)), "with 2 range bounds", "needs 3");
        assertMalformed(graph, List.of(init(1, 0)), "parallelism 0");
        assertMalformed(graph, List.of(finished(0, 0, 0, "tm-1", 3)), "edge 3");
        assertMalformed(graph, List.of(JobEvent.newBuilder().setTimestampMs(1).build()), "has no known type");
        assertMalformed(graph, log(reset(0, 0, 2), assigned(SOURCE_NODE, 0, 1, "a")), "reset to #2");
        assertMalformed(graph, log(assigned(SOURCE_NODE, 0, 2, "a"), assigned(SOURCE_NODE, 0, 1, "b")),
                "after #2 got splits");
    }

    private static void assertMalformed(JobGraph graph, List<JobEvent> events, String... messageParts) {
        assertThatThrownBy(() -> RecoveryPlanner.plan(graph, events, Map.of()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContainingAll(messageParts);
    }
}
