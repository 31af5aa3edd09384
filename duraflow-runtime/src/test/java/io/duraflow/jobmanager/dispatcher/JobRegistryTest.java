package io.duraflow.jobmanager.dispatcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.jobstore.CollectedData;
import io.duraflow.jobstore.JobOutcome;
import io.duraflow.jobstore.JobResultEntry;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The leader's memory of ended jobs stays bounded however many jobs run. */
class JobRegistryTest {
    private static JobResultEntry result(String jobId, int collectedBytes) {
        return new JobResultEntry(jobId, "job", "Job", JobOutcome.FINISHED, 1, 2, "", 0, Map.of(), Map.of(), List.of(),
                collectedBytes == 0 ? List.of() : List.of(new CollectedData("out", 0, 1, new byte[collectedBytes])));
    }

    @Test
    void largeResultsAreKeptWholeOnlyWithinTheByteBudgetAndTheNewestAlways() {
        JobRegistry registry = new JobRegistry(1_000, 10);
        for (int i = 0; i < 100; i++) {
            registry.resultStored(result("big-" + i, 600), null);
        }
        assertThat(registry.hasWholeResult("big-99")).as("the newest stays whole").isTrue();
        assertThat(registry.hasWholeResult("big-98")).as("two would exceed 1,000 bytes").isFalse();
        assertThat(registry.result("big-98")).get().satisfies(e -> assertThat(e.collected()).isEmpty());
        assertThat(registry.results()).as("10 summaries + 1 whole").hasSize(11);
        assertThat(registry.result("big-0")).as("old results are left to the store").isEmpty();
    }

    @Test
    void manySmallResultsKeepAtMostTheSummaryLimit() {
        JobRegistry registry = new JobRegistry(Long.MAX_VALUE, 5);
        for (int i = 0; i < 10_000; i++) {
            registry.resultStored(result("small-" + i, 0), null);
            registry.rememberSummary(result("read-" + i, 10));
        }
        assertThat(registry.results()).hasSize(JobRegistry.MAX_WHOLE_RESULTS + 5);
        assertThat(registry.hasWholeResult("small-9999")).isTrue();
        assertThat(registry.result("small-0")).isEmpty();
    }

    @Test
    void forgettingAResultForgetsItEverywhere() {
        JobRegistry registry = new JobRegistry(1_000, 10);
        registry.resultStored(result("a", 10), null);
        registry.rememberSummary(result("b", 10));
        registry.forget("a");
        registry.forget("b");
        assertThat(registry.result("a")).isEmpty();
        assertThat(registry.result("b")).isEmpty();
        assertThat(registry.results()).isEmpty();
    }
}
