package io.duraflow.jobmanager.recovery;

import static io.duraflow.jobmanager.recovery.AdoptionFixtures.assigned;
import static io.duraflow.jobmanager.recovery.AdoptionFixtures.batch;
import static io.duraflow.jobmanager.recovery.AdoptionFixtures.batchJob;
import static io.duraflow.jobmanager.recovery.AdoptionFixtures.batchPlan;
import static io.duraflow.jobmanager.recovery.AdoptionFixtures.consumer;
import static io.duraflow.jobmanager.recovery.AdoptionFixtures.finished;
import static io.duraflow.jobmanager.recovery.AdoptionFixtures.init;
import static io.duraflow.jobmanager.recovery.AdoptionFixtures.key;
import static io.duraflow.jobmanager.recovery.AdoptionFixtures.noSnapshot;
import static io.duraflow.jobmanager.recovery.AdoptionFixtures.pid;
import static io.duraflow.jobmanager.recovery.AdoptionFixtures.reader;
import static io.duraflow.jobmanager.recovery.AdoptionFixtures.reset;
import static io.duraflow.jobmanager.recovery.AdoptionFixtures.restart;
import static io.duraflow.jobmanager.recovery.AdoptionFixtures.sourcePartitionsKept;
import static io.duraflow.jobmanager.recovery.AdoptionFixtures.sourcesFinishedConsumersDeployed;
import static io.duraflow.jobmanager.recovery.AdoptionFixtures.state;
import static io.duraflow.jobmanager.recovery.AdoptionFixtures.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.jobmanager.events.proto.JobEvent;
import io.duraflow.jobmanager.recovery.AdoptionPlan.Outcome;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The adoption decision of a new leader for a batch job, one test per rule of
 * {@link AdoptionPlanner}: which reported tasks are adopted, and which subtasks stay finished or run
 * again and why, when the reports agree with the recovered state.
 */
class AdoptionPlannerBatchTest {
    @Test
    void runningConsumersThatReadKeptPartitionsAreAdopted() {
        ReportedTask first = consumer(0, 0, "tm-a");
        ReportedTask second = consumer(1, 0, "tm-b");

        AdoptionPlan plan = batchPlan(sourcesFinishedConsumersDeployed(), sourcePartitionsKept(),
                List.of(first, second));

        assertThat(plan.outcome()).isEqualTo(Outcome.ADOPT_ALL);
        assertThat(plan.fallbackReason()).isEmpty();
        assertThat(plan.decisions()).containsExactly(
                Map.entry(key(0, 0), new TaskDecision.AlreadyFinished(key(0, 0), 0, "tm-a")),
                Map.entry(key(0, 1), new TaskDecision.AlreadyFinished(key(0, 1), 0, "tm-b")),
                Map.entry(key(1, 0), new TaskDecision.Adopt(key(1, 0), 0, "tm-a")),
                Map.entry(key(1, 1), new TaskDecision.Adopt(key(1, 1), 0, "tm-b")));
        assertThat(plan.toCancel()).isEmpty();
        assertThat(plan.recovery().nextAttempts()).isEmpty();
        assertThat(plan.recovery().restored()).containsOnlyKeys(key(0, 0), key(0, 1));
        assertThat(plan.notes()).first().asString()
                .isEqualTo("adoption: ADOPT_ALL: 2 adopted, 2 finished, 0 run again, 0 cancelled, 2 subtasks reported");
        assertThat(plan.notes()).contains("v1/0#0 adopted on tm-a", "v0/1#0 finished on tm-b");
    }

    @Test
    void withoutReportsEverythingUnfinishedRunsAgainAsTheRecoveryPlanSays() {
        AdoptionPlan plan = batchPlan(sourcesFinishedConsumersDeployed(), sourcePartitionsKept(), List.of());

        assertThat(plan.outcome()).isEqualTo(Outcome.ADOPT_NONE);
        assertThat(restart(plan, 1, 0).attempt()).isEqualTo(1);
        assertThat(restart(plan, 1, 0).reason()).isEqualTo("no TaskManager reported #0");
        assertThat(plan.recovery().nextAttempts()).containsExactly(Map.entry(key(1, 0), 1), Map.entry(key(1, 1), 1));
        RecoveryPlan unadopted = RecoveryPlanner.plan(batchJob(), sourcesFinishedConsumersDeployed(),
                sourcePartitionsKept());
        assertThat(plan.recovery().restored()).isEqualTo(unadopted.restored());
        assertThat(plan.recovery().nextAttempts()).isEqualTo(unadopted.nextAttempts());
        assertThat(plan.recovery().splitsToReturn()).isEqualTo(unadopted.splitsToReturn());
        assertThat(plan.recovery().partitionsToRelease()).isEqualTo(unadopted.partitionsToRelease());
        assertThat(plan.recovery().notes()).isEqualTo(unadopted.notes());
    }

    @Test
    void aTaskOnALostTaskManagerIsNotAdoptedNorCancelled() {
        // tm-b is lost: its source partition too, so v0/1 runs again, and v1/0 reads it.
        Map<String, String> available = Map.of(pid(0, 0, 0, 0), "tm-a");

        AdoptionPlan plan = batchPlan(sourcesFinishedConsumersDeployed(), available,
                List.of(consumer(0, 0, "tm-a"), consumer(1, 0, "tm-b")), "tm-b");

        assertThat(plan.outcome()).isEqualTo(Outcome.ADOPT_NONE);
        assertThat(restart(plan, 0, 1).attempt()).isEqualTo(1);
        assertThat(restart(plan, 1, 1).reason()).isEqualTo("its TaskManager tm-b is lost");
        assertThat(restart(plan, 1, 0).reason())
                .isEqualTo("it reads v0/1 on edge 0, which runs again: its output is not the one read");
        assertThat(plan.toCancel()).extracting(ReportedTask::name).containsExactly("v1/0#0 on tm-a");
    }

    @Test
    void aConsumerThatReadsAnotherRangeThanTheLoggedLayoutRunsAgain() {
        ReportedTask wrongRange = batch("tm-a", 1, 0, 0, ReportedTask.State.RUNNING, List.of(
                new ReportedTask.InputRead(0, pid(0, 0, 0, 0), "tm-a", 0, 32),
                new ReportedTask.InputRead(0, pid(0, 1, 0, 0), "tm-b", 0, 32)), List.of(), List.of());

        AdoptionPlan plan = batchPlan(sourcesFinishedConsumersDeployed(), sourcePartitionsKept(),
                List.of(wrongRange, consumer(1, 0, "tm-b")));

        assertThat(plan.outcome()).isEqualTo(Outcome.ADOPT_SOME);
        assertThat(restart(plan, 1, 0).reason()).startsWith("on edge 0 it reads [")
                .contains("[0, 32)").contains("the recovery keeps").contains("[0, 64)");
        assertThat(plan.decision(1, 1)).isInstanceOf(TaskDecision.Adopt.class);
        assertThat(plan.toCancel()).containsExactly(wrongRange);
    }

    @Test
    void aConsumerThatReadsAPartitionTheRecoveryDoesNotKeepRunsAgain() {
        ReportedTask missingOne = batch("tm-a", 1, 0, 0, ReportedTask.State.RUNNING, List.of(
                new ReportedTask.InputRead(0, pid(0, 0, 0, 0), "tm-a", 0, 64)), List.of(), List.of());

        AdoptionPlan plan = batchPlan(sourcesFinishedConsumersDeployed(), sourcePartitionsKept(),
                List.of(missingOne));

        assertThat(restart(plan, 1, 0).reason()).contains("on edge 0 it reads").contains(pid(0, 1, 0, 0));
    }

    @Test
    void anOlderAttemptIsStaleAndCancelledWhileTheLoggedOneIsAdopted() {
        List<JobEvent> log = sourcesFinishedConsumersDeployed();
        log.add(reset(1, 1, 1));
        ReportedTask stale = consumer(1, 0, "tm-a");
        ReportedTask current = consumer(1, 1, "tm-b");

        AdoptionPlan plan = batchPlan(log, sourcePartitionsKept(), List.of(stale, current, consumer(0, 0, "tm-a")));

        assertThat(plan.decision(1, 1)).isEqualTo(new TaskDecision.Adopt(key(1, 1), 1, "tm-b"));
        assertThat(plan.toCancel()).containsExactly(stale);
        assertThat(plan.outcome()).isEqualTo(Outcome.ADOPT_ALL);
    }

    @Test
    void aNewerRunningAttemptOfAFinishedSubtaskIsCancelledAndCountedForLaterResets() {
        ReportedTask unloggedReset = reader(1, 1, "tm-c", "split-1");

        AdoptionPlan plan = batchPlan(sourcesFinishedConsumersDeployed(), sourcePartitionsKept(),
                List.of(unloggedReset, consumer(0, 0, "tm-a"), consumer(1, 0, "tm-b")));

        assertThat(plan.outcome()).isEqualTo(Outcome.ADOPT_ALL);
        assertThat(plan.decision(0, 1)).isEqualTo(new TaskDecision.AlreadyFinished(key(0, 1), 0, "tm-b"));
        assertThat(plan.toCancel()).containsExactly(unloggedReset);
        assertThat(plan.highestAttempts()).containsEntry(key(0, 1), 1).containsEntry(key(0, 0), 0);
        assertThat(plan.notes()).endsWith("cancel v0/1#1 on tm-c");
    }

    @Test
    void anAttemptNewerThanTheLogRunsAgainAboveIt() {
        ReportedTask unlogged = consumer(1, 2, "tm-a");

        AdoptionPlan plan = batchPlan(sourcesFinishedConsumersDeployed(), sourcePartitionsKept(), List.of(unlogged));

        TaskDecision.Restart decision = restart(plan, 1, 1);
        assertThat(decision.attempt()).isEqualTo(3);
        assertThat(decision.reason()).isEqualTo("its attempt #2 is newer than the log's #0: the reset that deployed"
                + " it is not in the log");
        assertThat(plan.recovery().nextAttempts()).containsEntry(key(1, 1), 3);
        assertThat(plan.highestAttempts()).containsEntry(key(1, 1), 2).containsEntry(key(1, 0), 0);
        assertThat(plan.toCancel()).containsExactly(unlogged);
    }

    @Test
    void theLoggedAttemptIsNotAdoptedWhenANewerOneWasReportedToo() {
        ReportedTask logged = consumer(1, 0, "tm-a");
        ReportedTask newer = consumer(1, 1, "tm-b");

        AdoptionPlan plan = batchPlan(sourcesFinishedConsumersDeployed(), sourcePartitionsKept(),
                List.of(logged, newer));

        assertThat(restart(plan, 1, 1).attempt()).isEqualTo(2);
        assertThat(restart(plan, 1, 1).reason()).startsWith("#1 was reported too: the old leader reset #0");
        assertThat(plan.toCancel()).containsExactly(logged, newer);
    }

    @Test
    void aTaskThatEndedWhileNoLeaderWasUpRunsAgain() {
        ReportedTask failed = batch("tm-a", 1, 0, 0, ReportedTask.State.FAILED, List.of(), List.of(), List.of());

        AdoptionPlan plan = batchPlan(sourcesFinishedConsumersDeployed(), sourcePartitionsKept(), List.of(failed));

        assertThat(restart(plan, 1, 0).reason()).isEqualTo("#0 on tm-a ended FAILED while no leader decided on it");
        assertThat(plan.toCancel()).isEmpty();
    }

    @Test
    void aReaderThatFinishedWhileNoLeaderDecidedIsAdoptedAndItsKeptOutputStays() {
        ReportedTask done = batch("tm-b", 0, 1, 0, ReportedTask.State.FINISHED, List.of(),
                List.of(new ReportedTask.OutputPartition(0, pid(0, 1, 0, 0))), List.of(utf8("split-1")));

        AdoptionPlan plan = batchPlan(oneSourceRunning(), Map.of(pid(0, 0, 0, 0), "tm-a", pid(0, 1, 0, 0), "tm-b"),
                List.of(done));

        assertThat(plan.decision(0, 1)).isEqualTo(new TaskDecision.Adopt(key(0, 1), 0, "tm-b"));
        assertThat(plan.recovery().partitionsToRelease()).as("its output, reported with the registration")
                .doesNotContain(pid(0, 1, 0, 0));
        assertThat(plan.toCancel()).isEmpty();
    }

    /** v0/0 finished; v0/1 still reads its split; v1 not laid out yet (its parallelism waits for the sources). */
    private List<JobEvent> oneSourceRunning(JobEvent... tail) {
        List<JobEvent> log = new ArrayList<>(List.of(init(0, 2),
                assigned(0, 0, "split-0"), state("after-0"),
                assigned(1, 0, "split-1"), state("after-1"),
                finished(0, 0, 0, "tm-a", 0)));
        log.addAll(List.of(tail));
        return log;
    }

    @Test
    void aRunningReaderHoldingTheLoggedSplitsIsAdoptedWithThem() {
        AdoptionPlan plan = batchPlan(oneSourceRunning(), Map.of(pid(0, 0, 0, 0), "tm-a"),
                List.of(reader(1, 0, "tm-b", "split-1")));

        assertThat(plan.decision(0, 1)).isEqualTo(new TaskDecision.Adopt(key(0, 1), 0, "tm-b"));
        assertThat(plan.decisions()).containsOnlyKeys(key(0, 0), key(0, 1));
        assertThat(plan.adoptedSplits()).containsOnlyKeys(AdoptionFixtures.SOURCE_NODE);
        assertThat(plan.adoptedSplits().get(AdoptionFixtures.SOURCE_NODE).get(1)).containsExactly(utf8("split-1"));
        assertThat(plan.recovery().splitsToReturn()).isEmpty();
        assertThat(plan.recovery().nextAttempts()).isEmpty();
    }

    @Test
    void aReaderHoldingOtherSplitsThanTheLoggedStateRunsAgainAndItsSplitsGoBack() {
        AdoptionPlan plan = batchPlan(oneSourceRunning(), Map.of(pid(0, 0, 0, 0), "tm-a"),
                List.of(reader(1, 0, "tm-b", "split-1", "split-9")));

        assertThat(restart(plan, 0, 1).reason()).isEqualTo("its reader holds 2 splits, the last recorded enumerator"
                + " state of 'numbers' (node 0) gives it 1");
        assertThat(plan.recovery().splitsToReturn().get(AdoptionFixtures.SOURCE_NODE)).containsOnlyKeys(1);
        assertThat(plan.adoptedSplits()).isEmpty();
    }

    @Test
    void aReaderWhoseSplitsMovedAfterTheLastEnumeratorStateRunsAgain() {
        AdoptionPlan plan = batchPlan(oneSourceRunning(assigned(1, 0, "split-2")), Map.of(pid(0, 0, 0, 0), "tm-a"),
                List.of(reader(1, 0, "tm-b", "split-1", "split-2")));

        assertThat(restart(plan, 0, 1).reason()).isEqualTo("its splits changed after the last recorded enumerator"
                + " state of 'numbers' (node 0)");
    }

    @Test
    void aReaderOfAnEnumeratorThatCannotSnapshotRunsAgain() {
        List<JobEvent> log = List.of(init(0, 2), assigned(0, 0, "split-0"), noSnapshot(),
                assigned(1, 0, "split-1"), noSnapshot());

        AdoptionPlan plan = batchPlan(log, Map.of(), List.of(reader(0, 0, "tm-a", "split-0"),
                reader(1, 0, "tm-b", "split-1")));

        assertThat(restart(plan, 0, 0).reason()).isEqualTo("the enumerator of 'numbers' (node 0) cannot snapshot");
        assertThat(plan.outcome()).isEqualTo(Outcome.ADOPT_NONE);
    }

    @Test
    void aMalformedLogPropagatesSoThatTheCallerRestartsFromScratch() {
        assertThatThrownBy(() -> batchPlan(List.of(finished(5, 0, 0, "tm-a")), Map.of(), List.of()))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("names vertex 5");
    }
}
