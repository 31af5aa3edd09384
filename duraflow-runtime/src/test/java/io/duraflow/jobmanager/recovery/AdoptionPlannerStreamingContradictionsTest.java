package io.duraflow.jobmanager.recovery;

import static io.duraflow.jobmanager.recovery.AdoptionFixtures.consumer;
import static io.duraflow.jobmanager.recovery.AdoptionFixtures.key;
import static io.duraflow.jobmanager.recovery.AdoptionFixtures.streaming;
import static io.duraflow.jobmanager.recovery.AdoptionFixtures.streamingJob;
import static io.duraflow.jobmanager.recovery.AdoptionFixtures.wholeStreamingJob;
import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.jobmanager.recovery.AdoptionPlan.Outcome;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Reports of a streaming job's tasks that contradict the checkpoint store or each other: the
 * {@link AdoptionPlanner} falls back and adopts nothing.
 */
class AdoptionPlannerStreamingContradictionsTest {
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
