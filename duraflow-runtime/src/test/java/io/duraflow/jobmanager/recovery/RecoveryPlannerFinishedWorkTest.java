package io.duraflow.jobmanager.recovery;

import static io.duraflow.jobmanager.recovery.RecoveryFixtures.SOURCE_NODE;
import static io.duraflow.jobmanager.recovery.RecoveryFixtures.SOURCE_OUTPUTS;
import static io.duraflow.jobmanager.recovery.RecoveryFixtures.assignedWithState;
import static io.duraflow.jobmanager.recovery.RecoveryFixtures.finished;
import static io.duraflow.jobmanager.recovery.RecoveryFixtures.held;
import static io.duraflow.jobmanager.recovery.RecoveryFixtures.init;
import static io.duraflow.jobmanager.recovery.RecoveryFixtures.key;
import static io.duraflow.jobmanager.recovery.RecoveryFixtures.log;
import static io.duraflow.jobmanager.recovery.RecoveryFixtures.pid;
import static io.duraflow.jobmanager.recovery.RecoveryFixtures.reset;
import static io.duraflow.jobmanager.recovery.RecoveryFixtures.sinkFinished;
import static io.duraflow.jobmanager.recovery.RecoveryFixtures.sourcesFinished;
import static io.duraflow.jobmanager.recovery.RecoveryFixtures.threeStagesAdaptive;
import static io.duraflow.jobmanager.recovery.RecoveryFixtures.threeStagesFixedMiddle;
import static io.duraflow.jobmanager.recovery.RecoveryFixtures.twoBranches;
import static io.duraflow.jobmanager.recovery.RecoveryFixtures.wordCount;
import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.jobmanager.events.proto.JobEvent;
import io.duraflow.jobmanager.events.proto.ProducedPartition;
import io.duraflow.jobmanager.events.proto.RunStarted;
import io.duraflow.plan.JobGraph;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What batch job recovery takes over as finished and what runs again under which attempt, from
 * hand-written event logs: finishes, resets and late finishes, decided layouts, abandoned runs.
 */
class RecoveryPlannerFinishedWorkTest {
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
}
