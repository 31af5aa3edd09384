package io.duraflow.jobmanager.recovery;

import static io.duraflow.jobmanager.recovery.RecoveryFixtures.SOURCE_NODE;
import static io.duraflow.jobmanager.recovery.RecoveryFixtures.assignedWithState;
import static io.duraflow.jobmanager.recovery.RecoveryFixtures.finished;
import static io.duraflow.jobmanager.recovery.RecoveryFixtures.held;
import static io.duraflow.jobmanager.recovery.RecoveryFixtures.init;
import static io.duraflow.jobmanager.recovery.RecoveryFixtures.key;
import static io.duraflow.jobmanager.recovery.RecoveryFixtures.log;
import static io.duraflow.jobmanager.recovery.RecoveryFixtures.pid;
import static io.duraflow.jobmanager.recovery.RecoveryFixtures.sinkFinished;
import static io.duraflow.jobmanager.recovery.RecoveryFixtures.sourcesFinished;
import static io.duraflow.jobmanager.recovery.RecoveryFixtures.strings;
import static io.duraflow.jobmanager.recovery.RecoveryFixtures.threeStagesFixedMiddle;
import static io.duraflow.jobmanager.recovery.RecoveryFixtures.twoBranches;
import static io.duraflow.jobmanager.recovery.RecoveryFixtures.wordCount;
import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.jobmanager.events.proto.JobEvent;
import io.duraflow.plan.JobGraph;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The partitions in batch job recovery: a finished producer whose output is lost runs again while a
 * consumer still needs it, and partitions no kept execution produced, or kept elsewhere than
 * recorded, are released.
 */
class RecoveryPlannerPartitionsTest {
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
}
