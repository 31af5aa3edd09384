package io.duraflow.jobmanager.recovery;

import static io.duraflow.jobmanager.recovery.RecoveryFixtures.SOURCE_NODE;
import static io.duraflow.jobmanager.recovery.RecoveryFixtures.SOURCE_OUTPUTS;
import static io.duraflow.jobmanager.recovery.RecoveryFixtures.assignedWithState;
import static io.duraflow.jobmanager.recovery.RecoveryFixtures.assignedWithoutSnapshot;
import static io.duraflow.jobmanager.recovery.RecoveryFixtures.finished;
import static io.duraflow.jobmanager.recovery.RecoveryFixtures.held;
import static io.duraflow.jobmanager.recovery.RecoveryFixtures.init;
import static io.duraflow.jobmanager.recovery.RecoveryFixtures.key;
import static io.duraflow.jobmanager.recovery.RecoveryFixtures.log;
import static io.duraflow.jobmanager.recovery.RecoveryFixtures.pid;
import static io.duraflow.jobmanager.recovery.RecoveryFixtures.sinkFinished;
import static io.duraflow.jobmanager.recovery.RecoveryFixtures.sourcesFinished;
import static io.duraflow.jobmanager.recovery.RecoveryFixtures.strings;
import static io.duraflow.jobmanager.recovery.RecoveryFixtures.wordCount;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.jobmanager.events.proto.JobEvent;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Batch job recovery of a source whose enumerator cannot snapshot: it is restored only whole, runs
 * again whole with a new enumerator, and a lost output of it that a kept consumer read cannot be
 * recovered.
 */
class RecoveryPlannerSourcesWithoutSnapshotsTest {
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
}
