package io.duraflow.jobmanager.recovery;

import static io.duraflow.jobmanager.recovery.AdoptionFixtures.key;
import static io.duraflow.jobmanager.recovery.AdoptionFixtures.restart;
import static io.duraflow.jobmanager.recovery.AdoptionFixtures.streaming;
import static io.duraflow.jobmanager.recovery.AdoptionFixtures.streamingJob;
import static io.duraflow.jobmanager.recovery.AdoptionFixtures.twoRegions;
import static io.duraflow.jobmanager.recovery.AdoptionFixtures.utf8;
import static io.duraflow.jobmanager.recovery.AdoptionFixtures.wholeStreamingJob;
import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.jobmanager.recovery.AdoptionPlan.Outcome;
import io.duraflow.plan.JobGraph;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The adoption decision of a new leader for a streaming job, one test per rule of
 * {@link AdoptionPlanner}: which regions are adopted whole, which restart from which checkpoint and
 * why, and how the regions follow the job's pipelined edges.
 */
class AdoptionPlannerStreamingTest {
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

    @Test
    void streamingRegionsFollowPipelinedEdges() {
        assertThat(new StreamingAdoption(twoRegions(), StreamingCheckpointFacts.none(), List.of(), Set.of()).regions())
                .containsExactly(Set.of(0, 1), Set.of(2, 3));
        assertThat(new StreamingAdoption(streamingJob(), StreamingCheckpointFacts.none(), List.of(), Set.of()).regions())
                .containsExactly(Set.of(0, 1));
    }
}
