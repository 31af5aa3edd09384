package io.duraflow.jobmanager.recovery;

import static io.duraflow.jobmanager.recovery.RecoveryFixtures.SOURCE_NODE;
import static io.duraflow.jobmanager.recovery.RecoveryFixtures.assigned;
import static io.duraflow.jobmanager.recovery.RecoveryFixtures.assignedWithState;
import static io.duraflow.jobmanager.recovery.RecoveryFixtures.finished;
import static io.duraflow.jobmanager.recovery.RecoveryFixtures.held;
import static io.duraflow.jobmanager.recovery.RecoveryFixtures.key;
import static io.duraflow.jobmanager.recovery.RecoveryFixtures.log;
import static io.duraflow.jobmanager.recovery.RecoveryFixtures.pid;
import static io.duraflow.jobmanager.recovery.RecoveryFixtures.reset;
import static io.duraflow.jobmanager.recovery.RecoveryFixtures.returned;
import static io.duraflow.jobmanager.recovery.RecoveryFixtures.state;
import static io.duraflow.jobmanager.recovery.RecoveryFixtures.strings;
import static io.duraflow.jobmanager.recovery.RecoveryFixtures.wordCount;
import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.jobmanager.events.proto.JobEvent;
import io.duraflow.plan.JobGraph;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The splits in batch job recovery: which go back to the enumerator (those of source subtasks that
 * run again), which stay with restored ones, and how the bookkeeping is read as of the enumerator's
 * last logged state.
 */
class RecoveryPlannerSplitsTest {
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
}
