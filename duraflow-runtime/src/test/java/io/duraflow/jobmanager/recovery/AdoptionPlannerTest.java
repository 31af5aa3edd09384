package io.duraflow.jobmanager.recovery;

import static io.duraflow.jobmanager.recovery.AdoptionFixtures.assigned;
import static io.duraflow.jobmanager.recovery.AdoptionFixtures.batch;
import static io.duraflow.jobmanager.recovery.AdoptionFixtures.batchJob;
import static io.duraflow.jobmanager.recovery.AdoptionFixtures.consumer;
import static io.duraflow.jobmanager.recovery.AdoptionFixtures.finished;
import static io.duraflow.jobmanager.recovery.AdoptionFixtures.init;
import static io.duraflow.jobmanager.recovery.AdoptionFixtures.noSnapshot;
import static io.duraflow.jobmanager.recovery.AdoptionFixtures.pid;
import static io.duraflow.jobmanager.recovery.AdoptionFixtures.reader;
import static io.duraflow.jobmanager.recovery.AdoptionFixtures.reset;
import static io.duraflow.jobmanager.recovery.AdoptionFixtures.sourcePartitionsKept;
import static io.duraflow.jobmanager.recovery.AdoptionFixtures.sourcesFinishedConsumersDeployed;
import static io.duraflow.jobmanager.recovery.AdoptionFixtures.state;
import static io.duraflow.jobmanager.recovery.AdoptionFixtures.streaming;
import static io.duraflow.jobmanager.recovery.AdoptionFixtures.streamingJob;
import static io.duraflow.jobmanager.recovery.AdoptionFixtures.twoRegions;
import static io.duraflow.jobmanager.recovery.AdoptionFixtures.utf8;
import static io.duraflow.jobmanager.recovery.AdoptionFixtures.wholeStreamingJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.jobmanager.events.proto.JobEvent;
import io.duraflow.jobmanager.recovery.AdoptionPlan.Outcome;
import io.duraflow.plan.JobGraph;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The adoption decision of a new leader, one test per rule of {@link AdoptionPlanner}: which
 * reported tasks are adopted, which subtasks stay finished or run again and why, and when the
 * reports contradict the recovered state so that nothing is adopted.
 */
class AdoptionPlannerTest {

    private static ExecutionKey key(int vertex, int subtask) {
        return new ExecutionKey(vertex, subtask);
    }

    private static AdoptionPlan batchPlan(List<JobEvent> events, Map<String, String> available,
            Collection<ReportedTask> reports, String... lost) {
        return AdoptionPlanner.planBatch(batchJob(), events, available, reports, Set.of(lost));
    }

    private static TaskDecision.Restart restart(AdoptionPlan plan, int vertex, int subtask) {
        assertThat(plan.decision(vertex, subtask)).isInstanceOf(TaskDecision.Restart.class);
        return (TaskDecision.Restart) plan.decision(vertex, subtask);
    }

    @Nested
    class Batch {

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

    /** Rule 1 and 2b: reports that contradict the log or each other make the whole job fall back. */
    @Nested
    class BatchContradictions {

        private void assertFallback(AdoptionPlan plan, String reason) {
            assertThat(plan.outcome()).isEqualTo(Outcome.FALLBACK);
            assertThat(plan.fallbackReason()).isEqualTo(reason);
            assertThat(plan.adopted()).isEmpty();
            assertThat(plan.notes().get(0)).contains("FALLBACK (" + reason + ")");
            plan.restarted().forEach(restart -> assertThat(restart.reason()).isEqualTo("adoption fell back: " + reason));
        }

        @Test
        void theSameAttemptReportedByTwoTaskManagers() {
            ReportedTask one = consumer(0, 0, "tm-a");
            ReportedTask two = consumer(0, 0, "tm-b");
            ReportedTask innocent = consumer(1, 0, "tm-b");

            AdoptionPlan plan = batchPlan(sourcesFinishedConsumersDeployed(), sourcePartitionsKept(),
                    List.of(one, two, innocent));

            assertFallback(plan, "v1/0#0 is reported twice, by tm-a and tm-b (an attempt is deployed once)");
            assertThat(plan.toCancel()).containsExactly(one, two, innocent);
            assertThat(plan.finished()).hasSize(2);
            assertThat(plan.recovery().nextAttempts()).containsExactly(Map.entry(key(1, 0), 1), Map.entry(key(1, 1), 1));
        }

        @Test
        void aFinishedTaskReportedWithOtherPartitionsThanTheLog() {
            ReportedTask other = batch("tm-a", 0, 0, 0, ReportedTask.State.FINISHED, List.of(),
                    List.of(new ReportedTask.OutputPartition(0, "somewhere-else")), List.of());

            AdoptionPlan plan = batchPlan(sourcesFinishedConsumersDeployed(), sourcePartitionsKept(),
                    List.of(other, consumer(0, 0, "tm-a")));

            assertFallback(plan, "v0/0#0 on tm-a reports partitions [edge 0: somewhere-else], but the log says it"
                    + " produced [edge 0: " + pid(0, 0, 0, 0) + "]");
            assertThat(plan.decision(0, 0)).isEqualTo(new TaskDecision.AlreadyFinished(key(0, 0), 0, "tm-a"));
        }

        @Test
        void aFinishedTaskReportedOnAnotherTaskManager() {
            ReportedTask moved = batch("tm-c", 0, 0, 0, ReportedTask.State.FINISHED, List.of(),
                    List.of(new ReportedTask.OutputPartition(0, pid(0, 0, 0, 0))), List.of());

            assertFallback(batchPlan(sourcesFinishedConsumersDeployed(), sourcePartitionsKept(), List.of(moved)),
                    "v0/0#0 on tm-c is reported finished there, but the log says it finished on tm-a");
        }

        @Test
        void aTaskTheLogSaysFinishedReportedRunning() {
            ReportedTask running = reader(0, 0, "tm-a", "split-0");

            assertFallback(batchPlan(sourcesFinishedConsumersDeployed(), sourcePartitionsKept(), List.of(running)),
                    "v0/0#0 on tm-a is reported RUNNING, but the log says it finished");
        }

        @Test
        void aFinishedTaskReportedAsTheLogSaysIsNoContradiction() {
            ReportedTask same = batch("tm-a", 0, 0, 0, ReportedTask.State.FINISHED, List.of(),
                    List.of(new ReportedTask.OutputPartition(0, pid(0, 0, 0, 0))), List.of());

            AdoptionPlan plan = batchPlan(sourcesFinishedConsumersDeployed(), sourcePartitionsKept(),
                    List.of(same, consumer(0, 0, "tm-a"), consumer(1, 0, "tm-b")));

            assertThat(plan.outcome()).isEqualTo(Outcome.ADOPT_ALL);
        }

        @Test
        void aVertexOrSubtaskOrParallelismTheLogDoesNotHave() {
            ReportedTask noVertex = batch("tm-a", 7, 0, 0, ReportedTask.State.RUNNING, List.of(), List.of(), List.of());
            assertFallback(batchPlan(sourcesFinishedConsumersDeployed(), sourcePartitionsKept(), List.of(noVertex)),
                    "v7/0#0 on tm-a names vertex 7, but the job graph has 2 vertices");

            ReportedTask noSubtask = consumer(0, 0, "tm-a");
            noSubtask = new ReportedTask("tm-a", key(1, 2), 0, ReportedTask.State.RUNNING, 2, "s",
                    noSubtask.progress());
            assertFallback(batchPlan(sourcesFinishedConsumersDeployed(), sourcePartitionsKept(), List.of(noSubtask)),
                    "v1/2#0 on tm-a names a subtask of v1, which has 2 subtasks");

            ReportedTask otherParallelism = new ReportedTask("tm-a", key(1, 0), 0, ReportedTask.State.RUNNING, 3, "s",
                    consumer(0, 0, "tm-a").progress());
            assertFallback(batchPlan(sourcesFinishedConsumersDeployed(), sourcePartitionsKept(),
                    List.of(otherParallelism)), "v1/0#0 on tm-a runs with parallelism 3, but v1 has 2");
        }

        @Test
        void streamingFactsForABatchJob() {
            assertFallback(batchPlan(sourcesFinishedConsumersDeployed(), sourcePartitionsKept(),
                    List.of(streaming(1, 0, 0, "tm-a", 0, 0, 0))),
                    "v1/0#0 on tm-a reports streaming progress for a batch job");
        }

        @Test
        void aTaskOfAVertexWhoseLayoutIsNotLoggedIsCancelledWithoutContradiction() {
            List<JobEvent> log = sourcesFinishedConsumersDeployed();
            log.remove(log.size() - 1);  // v1's VertexInitialized was not flushed
            ReportedTask unlogged = consumer(0, 0, "tm-a");

            AdoptionPlan plan = batchPlan(log, sourcePartitionsKept(), List.of(unlogged));

            assertThat(plan.outcome()).isEqualTo(Outcome.ADOPT_ALL);
            assertThat(plan.decisions()).containsOnlyKeys(key(0, 0), key(0, 1));
            assertThat(plan.toCancel()).containsExactly(unlogged);
            assertThat(plan.highestAttempts()).containsEntry(key(1, 0), 0);
        }
    }

    @Nested
    class Streaming {
        private AdoptionPlan plan(JobGraph graph, long latest, Collection<ReportedTask> reports, String... lost) {
            return AdoptionPlanner.planStreaming(graph, new StreamingCheckpointFacts(latest, 0), reports, Set.of(lost));
        }

        @Test
        void aJobWhoseTasksAllHoldTheLatestCheckpointIsAdoptedWhole() {
            List<ReportedTask> reports = wholeStreamingJob(2, 0, 0, 8, 7);

            AdoptionPlan plan = plan(streamingJob(), 7, reports);

            assertThat(plan.outcome()).isEqualTo(Outcome.ADOPT_ALL);
            assertThat(plan.adopted()).hasSize(4);
            assertThat(plan.toCancel()).isEmpty();
            assertThat(plan.restoreCheckpoint()).isEqualTo(7);
            assertThat(plan.notifyCompleted()).isEmpty();
            assertThat(plan.recovery()).isNull();
        }

        @Test
        void tasksThatMissedTheCompletionOfTheLatestCheckpointAreToldAgain() {
            List<ReportedTask> reports = wholeStreamingJob(2, 0, 0, 7, 6);

            AdoptionPlan plan = plan(streamingJob(), 7, reports);

            assertThat(plan.outcome()).isEqualTo(Outcome.ADOPT_ALL);
            assertThat(plan.notifyCompleted()).containsExactly(key(0, 0), key(0, 1), key(1, 0), key(1, 1));
        }

        @Test
        void tasksRestoredFromTheLatestCheckpointHoldItsState() {
            AdoptionPlan plan = plan(streamingJob(), 7, wholeStreamingJob(2, 3, 7, 0, 0));

            assertThat(plan.outcome()).isEqualTo(Outcome.ADOPT_ALL);
            assertThat(plan.notifyCompleted()).hasSize(4);
        }

        @Test
        void aMissingTaskRestartsItsWholeRegionAboveEveryReportedAttempt() {
            List<ReportedTask> reports = wholeStreamingJob(2, 2, 0, 8, 7);
            reports.remove(3);  // v1/1

            AdoptionPlan plan = plan(streamingJob(), 7, reports);

            assertThat(plan.outcome()).isEqualTo(Outcome.ADOPT_NONE);
            assertThat(plan.restarted()).hasSize(4).allSatisfy(restart -> {
                assertThat(restart.attempt()).isEqualTo(3);
                assertThat(restart.reason()).isEqualTo("region [0, 1] restarts from checkpoint 7: v1/1 was not reported");
            });
            assertThat(plan.toCancel()).hasSize(3);
        }

        @Test
        void aLostTaskManagerRestartsOnlyTheRegionsItRan() {
            List<ReportedTask> reports = wholeStreamingJob(4, 0, 0, 8, 7);
            List<ReportedTask> moved = new ArrayList<>();
            for (ReportedTask report : reports) {  // the right pipeline runs on tm-c only
                moved.add(report.key().vertex() < 2 ? report : streaming(report.key().vertex(), report.key().subtask(),
                        0, "tm-c", 0, 8, 7));
            }

            AdoptionPlan plan = plan(twoRegions(), 7, moved, "tm-c");

            assertThat(plan.outcome()).isEqualTo(Outcome.ADOPT_SOME);
            assertThat(plan.adopted()).extracting(TaskDecision::key)
                    .containsExactly(key(0, 0), key(0, 1), key(1, 0), key(1, 1));
            assertThat(restart(plan, 2, 0).reason())
                    .isEqualTo("region [2, 3] restarts from checkpoint 7: v2/0: its TaskManager tm-c is lost");
            assertThat(plan.toCancel()).isEmpty();
            assertThat(plan.adopted()).noneMatch(adopt -> adopt.tmId().equals("tm-c"));
        }

        @Test
        void aTaskThatTookNoPartInTheLatestCheckpointRestartsItsRegion() {
            List<ReportedTask> reports = wholeStreamingJob(2, 0, 0, 8, 7);
            reports.set(2, streaming(1, 0, 0, "tm-a", 0, 6, 6));

            AdoptionPlan plan = plan(streamingJob(), 7, reports);

            assertThat(restart(plan, 0, 0).reason()).endsWith("v1/0#0 on tm-a holds no state of checkpoint 7"
                    + " (restored from none, acknowledged up to 6)");
        }

        @Test
        void tasksOfTwoRunsRestartTheirRegion() {
            List<ReportedTask> reports = wholeStreamingJob(2, 1, 0, 8, 7);
            reports.set(1, streaming(0, 1, 1, "tm-b", ReportedTask.State.RUNNING, "run-2", 0, 8, 7, List.of()));

            AdoptionPlan plan = plan(streamingJob(), 7, reports);

            assertThat(restart(plan, 1, 1).reason()).endsWith("tasks of 2 runs of the job were reported [run-1, run-2]:"
                    + " the old leader was restarting the job");
        }

        @Test
        void aReaderThatReceivedSplitsAfterTheRestoredCheckpointRestartsItsRegion() {
            List<ReportedTask> reports = wholeStreamingJob(2, 0, 0, 8, 7);
            reports.set(0, streaming(0, 0, 0, "tm-a", ReportedTask.State.RUNNING, "run-1", 0, 8, 7, List.of(
                    new ReportedTask.SplitsReceived(0, List.of(utf8("early"))),
                    new ReportedTask.SplitsReceived(7, List.of(utf8("late-1"), utf8("late-2"))))));

            AdoptionPlan plan = plan(streamingJob(), 7, reports);

            assertThat(restart(plan, 0, 0).reason()).endsWith("v0/0#0 on tm-a received 2 splits after checkpoint 7:"
                    + " an enumerator restored from it would hand them out again");
        }

        @Test
        void splitsReceivedBeforeTheRestoredCheckpointAreInItsState() {
            List<ReportedTask> reports = wholeStreamingJob(2, 0, 0, 8, 7);
            reports.set(0, streaming(0, 0, 0, "tm-a", ReportedTask.State.RUNNING, "run-1", 0, 8, 7, List.of(
                    new ReportedTask.SplitsReceived(0, List.of(utf8("early"))),
                    new ReportedTask.SplitsReceived(6, List.of(utf8("later"))))));

            assertThat(plan(streamingJob(), 7, reports).outcome()).isEqualTo(Outcome.ADOPT_ALL);
        }

        @Test
        void withoutACheckpointAnySplitAReaderReceivedWouldBeHandedOutAgain() {
            List<ReportedTask> reports = wholeStreamingJob(2, 0, 0, 0, 0);
            reports.set(0, streaming(0, 0, 0, "tm-a", ReportedTask.State.RUNNING, "run-1", 0, 0, 0, List.of(
                    new ReportedTask.SplitsReceived(0, List.of(utf8("first"))))));

            AdoptionPlan plan = plan(streamingJob(), 0, reports);

            assertThat(restart(plan, 1, 0).reason()).isEqualTo("region [0, 1] restarts from empty state: v0/0#0 on tm-a"
                    + " received 1 splits after it started: an enumerator restored from it would hand them out again");
            assertThat(plan(streamingJob(), 0, wholeStreamingJob(2, 0, 0, 0, 0)).outcome())
                    .isEqualTo(Outcome.ADOPT_ALL);
        }

        @Test
        void aFinishedTaskStaysFinishedInAnAdoptedRegion() {
            List<ReportedTask> reports = wholeStreamingJob(2, 0, 0, 8, 7);
            reports.set(0, streaming(0, 0, 0, "tm-a", ReportedTask.State.FINISHED, "run-1", 0, 6, 6, List.of()));

            AdoptionPlan plan = plan(streamingJob(), 7, reports);

            assertThat(plan.outcome()).isEqualTo(Outcome.ADOPT_ALL);
            assertThat(plan.decision(0, 0)).isEqualTo(new TaskDecision.AlreadyFinished(key(0, 0), 0, "tm-a"));
            assertThat(plan.notifyCompleted()).doesNotContain(key(0, 0));
        }

        @Test
        void aFailedTaskRestartsItsRegion() {
            List<ReportedTask> reports = wholeStreamingJob(2, 0, 0, 8, 7);
            reports.set(3, streaming(1, 1, 0, "tm-b", ReportedTask.State.FAILED, "run-1", 0, 8, 7, List.of()));

            assertThat(restart(plan(streamingJob(), 7, reports), 0, 0).reason())
                    .endsWith("v1/1#0 on tm-b ended FAILED while no leader was up");
        }

        @Test
        void anOlderAttemptIsStaleAndTheNewestIsAdopted() {
            List<ReportedTask> reports = wholeStreamingJob(2, 1, 0, 8, 7);
            ReportedTask stale = streaming(0, 0, 0, "tm-b", ReportedTask.State.RUNNING, "run-0", 0, 5, 5, List.of());
            reports.add(stale);

            AdoptionPlan plan = plan(streamingJob(), 7, reports);

            assertThat(plan.outcome()).isEqualTo(Outcome.ADOPT_ALL);
            assertThat(plan.decision(0, 0)).isEqualTo(new TaskDecision.Adopt(key(0, 0), 1, "tm-a"));
            assertThat(plan.toCancel()).containsExactly(stale);
        }

        @Test
        void theNewestAttemptOnALostTaskManagerMakesTheLiveOlderOneStale() {
            List<ReportedTask> reports = wholeStreamingJob(2, 0, 0, 8, 7);
            reports.add(streaming(0, 0, 1, "tm-c", 0, 8, 7));

            AdoptionPlan plan = plan(streamingJob(), 7, reports, "tm-c");

            assertThat(restart(plan, 0, 0).reason()).endsWith("v0/0: its newest attempt #1 is on a lost TaskManager");
            assertThat(restart(plan, 0, 0).attempt()).isEqualTo(2);
        }
    }

    @Nested
    class StreamingContradictions {

        @Test
        void aCheckpointCompletedThatTheStoreDoesNotHave() {
            List<ReportedTask> reports = wholeStreamingJob(2, 0, 0, 9, 9);

            AdoptionPlan plan = AdoptionPlanner.planStreaming(streamingJob(), new StreamingCheckpointFacts(7, 0),
                    reports, Set.of());

            assertThat(plan.outcome()).isEqualTo(Outcome.FALLBACK);
            assertThat(plan.fallbackReason())
                    .isEqualTo("v0/0#0 on tm-a was told that checkpoint 9 completed, but the store's latest is 7");
            assertThat(plan.adopted()).isEmpty();
            assertThat(plan.toCancel()).hasSize(4);
            assertThat(plan.restarted()).hasSize(4).allSatisfy(restart -> assertThat(restart.reason())
                    .startsWith("region [0, 1] restarts from checkpoint 7: adoption fell back: "));
        }

        @Test
        void aRestoreFromACheckpointTheStoreDoesNotHave() {
            List<ReportedTask> reports = wholeStreamingJob(2, 0, 0, 8, 7);
            reports.set(2, streaming(1, 0, 0, "tm-a", 12, 12, 0));

            AdoptionPlan plan = AdoptionPlanner.planStreaming(streamingJob(), new StreamingCheckpointFacts(7, 0),
                    reports, Set.of());

            assertThat(plan.fallbackReason()).isEqualTo("v1/0#0 on tm-a restored checkpoint 12, which the store does"
                    + " not have (its latest is 7)");
        }

        @Test
        void theInitialRestoreIsNoContradictionWhileTheStoreIsEmpty() {
            AdoptionPlan plan = AdoptionPlanner.planStreaming(streamingJob(), new StreamingCheckpointFacts(0, 40),
                    wholeStreamingJob(2, 0, 40, 0, 0), Set.of());

            assertThat(plan.outcome()).isEqualTo(Outcome.ADOPT_ALL);
            assertThat(plan.restoreCheckpoint()).isEqualTo(40);
        }

        @Test
        void theSameAttemptTwice() {
            List<ReportedTask> reports = wholeStreamingJob(2, 0, 0, 8, 7);
            reports.add(streaming(1, 1, 0, "tm-c", 0, 8, 7));

            AdoptionPlan plan = AdoptionPlanner.planStreaming(streamingJob(), new StreamingCheckpointFacts(7, 0),
                    reports, Set.of("tm-c"));

            assertThat(plan.outcome()).isEqualTo(Outcome.FALLBACK);
            assertThat(plan.fallbackReason()).isEqualTo("v1/1#0 is reported twice, by tm-b and tm-c (an attempt is"
                    + " deployed once)");
            assertThat(plan.toCancel()).hasSize(4).noneMatch(task -> task.tmId().equals("tm-c"));
        }

        @Test
        void batchFactsOrAnotherParallelism() {
            AdoptionPlan batchFacts = AdoptionPlanner.planStreaming(streamingJob(), new StreamingCheckpointFacts(7, 0),
                    List.of(consumer(0, 0, "tm-a")), Set.of());
            assertThat(batchFacts.fallbackReason()).isEqualTo("v1/0#0 on tm-a reports batch progress for a streaming job");

            ReportedTask wide = new ReportedTask("tm-a", key(0, 0), 0, ReportedTask.State.RUNNING, 4, "s",
                    new ReportedTask.StreamingProgress("run-1", 0, 8, 7, List.of()));
            assertThat(AdoptionPlanner.planStreaming(streamingJob(), new StreamingCheckpointFacts(7, 0), List.of(wide),
                    Set.of()).fallbackReason()).isEqualTo("v0/0#0 on tm-a runs with parallelism 4, but v0 has 2");
        }
    }

    @Test
    void streamingRegionsFollowPipelinedEdges() {
        assertThat(new StreamingAdoption(twoRegions(), StreamingCheckpointFacts.none(), List.of(), Set.of()).regions())
                .containsExactly(Set.of(0, 1), Set.of(2, 3));
        assertThat(new StreamingAdoption(streamingJob(), StreamingCheckpointFacts.none(), List.of(), Set.of()).regions())
                .containsExactly(Set.of(0, 1));
    }
}
