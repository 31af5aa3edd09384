package io.duraflow.checkpoint;

import static io.duraflow.checkpoint.CoordinatorHarness.SOURCE_0;
import static io.duraflow.checkpoint.CoordinatorHarness.config;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the coordinator tells {@code duraflow checkpoints ID}: counts, latest, restore, history. */
class CheckpointOverviewTest {
    private static final long INTERVAL = 100;
    private static final long TIMEOUT = 1_000;

    @TempDir
    Path tmp;

    @Test
    void countsCompletedAndFailedNamesTheLatestAndListsTheInProgressCheckpointLast() {
        CoordinatorHarness h = new CoordinatorHarness(tmp, config(INTERVAL, TIMEOUT, 0, 1, 5, 1));
        h.coordinator.startPeriodic();
        h.advance(INTERVAL);
        h.ackAll(1);
        h.advance(INTERVAL);
        h.coordinator.decline(SOURCE_0, 2, CheckpointFailureReason.SNAPSHOT_UNAVAILABLE_SOFT, "between files");
        h.settle();
        h.coordinator.triggerCheckpoint();
        h.settle();

        CheckpointOverview overview = h.coordinator.overview();

        assertThat(overview.intervalMs()).isEqualTo(INTERVAL);
        assertThat(overview.completed()).isEqualTo(1);
        assertThat(overview.failed()).isEqualTo(1);
        assertThat(overview.latestCompleted()).hasValueSatisfying(latest -> {
            assertThat(latest.checkpointId()).isEqualTo(1);
            assertThat(latest.metadataFile()).isEqualTo(h.directories.metadata(1));
        });
        assertThat(overview.restoredFrom()).isEmpty();
        assertThat(overview.history()).extracting(CheckpointStats::checkpointId).containsExactly(1L, 2L, 3L);
        assertThat(overview.history()).extracting(CheckpointStats::status).containsExactly(
                CheckpointStats.Status.COMPLETED, CheckpointStats.Status.FAILED, CheckpointStats.Status.IN_PROGRESS);
        assertThat(overview.history().get(1).failure().reason())
                .isEqualTo(CheckpointFailureReason.SNAPSHOT_UNAVAILABLE_SOFT);
    }

    @Test
    void aRestoredCoordinatorNamesTheCheckpointItRestoredAndCountsAgainFromZero() {
        CoordinatorHarness first = new CoordinatorHarness(tmp, config(INTERVAL, TIMEOUT, 0, 1, 0, 1));
        first.coordinator.startPeriodic();
        first.advance(INTERVAL);
        first.ackAll(1);

        CoordinatorHarness second = new CoordinatorHarness(tmp, config(INTERVAL, TIMEOUT, 0, 1, 0, 1));
        second.coordinator.restoreLatest();
        second.settle();

        CheckpointOverview overview = second.coordinator.overview();
        assertThat(overview.restoredFrom()).hasValueSatisfying(restored ->
                assertThat(restored.checkpointId()).isEqualTo(1));
        assertThat(overview.latestCompleted()).hasValueSatisfying(latest ->
                assertThat(latest.checkpointId()).isEqualTo(1));
        assertThat(overview.completed()).as("counted by this coordinator").isZero();
        assertThat(overview.history()).isEmpty();
    }
}
