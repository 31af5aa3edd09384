package io.duraflow.checkpoint;

import static io.duraflow.checkpoint.CoordinatorHarness.SOURCE_0;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * the timing rules on a coordinator with a manual clock: soft declines never count, the
 * tolerable-failed-checkpoints timeout fails the job over only when set, resets on completion,
 * counts from the restored checkpoint after a leader change, and a soft decline is retried sooner
 * than the next interval.
 */
class CheckpointRejectionTimingTest {
    private static final long INTERVAL = 1_000;
    private static final long TIMEOUT = 10_000;

    @TempDir
    Path tmp;

    private static CheckpointCoordinatorConfig config(long failureTimeoutMs, long softRetryMs, long minPauseMs) {
        return new CheckpointCoordinatorConfig(INTERVAL, TIMEOUT, minPauseMs, 1, 0, 1,
                CoordinatorHarness.MAX_PARALLELISM, failureTimeoutMs, softRetryMs);
    }

    private CoordinatorHarness started(CheckpointCoordinatorConfig config) {
        return started(tmp, config);
    }

    private static CoordinatorHarness started(Path root, CheckpointCoordinatorConfig config) {
        return CoordinatorHarness.started(root, config);
    }

    /** Lets the next periodic checkpoint trigger and its source decline it softly. */
    private static void softDecline(CoordinatorHarness h, long checkpointId) {
        h.coordinator.decline(SOURCE_0, checkpointId, CheckpointFailureReason.SNAPSHOT_UNAVAILABLE_SOFT,
                "reading chunk " + checkpointId);
        h.settle();
    }

    @Test
    void softDeclinesNeverFailTheJobWithoutATimeoutHoweverMany() {
        CoordinatorHarness h = started(config(0, 0, 0));
        for (long id = 1; id <= 30; id++) {
            h.advance(INTERVAL);
            softDecline(h, id);
        }
        assertThat(h.jobFailures).isEmpty();
        assertThat(h.coordinator.history()).hasSize(30);
    }

    @Test
    void withATimeoutTheJobFailsOverOnceNoCheckpointCompletedWithinItNamingTheLastDecline() {
        CoordinatorHarness h = started(config(5_500, 0, 0));
        for (long id = 1; id <= 5; id++) {
            h.advance(INTERVAL);
            softDecline(h, id);
        }
        h.advance(499);
        assertThat(h.jobFailures).isEmpty();

        h.advance(1);

        assertThat(h.jobFailures).singleElement().satisfies(cause -> assertThat(cause)
                .startsWith("no checkpoint completed within 5500 ms"
                        + " (execution.checkpointing.tolerable-failed-checkpoints-timeout); the last failure:")
                .contains("SNAPSHOT_UNAVAILABLE_SOFT").contains("reading chunk 5"));
        // The failover gives the restored job a whole new window.
        h.advance(5_499);
        assertThat(h.jobFailures).hasSize(1);
    }

    @Test
    void aCompletedCheckpointResetsTheTimeout() {
        CoordinatorHarness h = started(config(2_500, 0, 0));
        h.advance(INTERVAL);
        softDecline(h, 1);
        h.advance(INTERVAL);
        h.ackAll(2);
        assertThat(h.store.latest()).isPresent();

        h.advance(2_499);
        assertThat(h.jobFailures).isEmpty();
        h.advance(1);
        assertThat(h.jobFailures).hasSize(1);
    }

    @Test
    void afterALeaderChangeTheTimeoutCountsFromTheRestoredCheckpoint() {
        Path shared = tmp.resolve("shared");
        CoordinatorHarness first = new CoordinatorHarness(shared, config(5_000, 0, 0));
        first.coordinator.restoreLatest();
        first.settle();
        first.coordinator.startPeriodic();
        first.advance(INTERVAL);
        first.ackAll(1);
        long completedAt = first.main.now();
        first.coordinator.shutdown();

        // A new leader starts 3 s later with its own clock at the same time: 2 s of the window are left.
        CoordinatorHarness second = new CoordinatorHarness(shared, config(5_000, 0, 0), completedAt + 3_000);
        second.coordinator.restoreLatest();
        second.settle();
        second.coordinator.startPeriodic();
        second.advance(INTERVAL);
        softDecline(second, second.tasks.triggers.get(0).checkpointId());

        second.advance(999);
        assertThat(second.jobFailures).isEmpty();
        second.advance(1);
        assertThat(second.jobFailures).singleElement().satisfies(cause -> assertThat(cause)
                .contains("SNAPSHOT_UNAVAILABLE_SOFT"));
    }

    @Test
    void aSoftDeclineIsRetriedAfterTheRetryDelayInsteadOfAWholeInterval() {
        CoordinatorHarness h = started(config(0, 200, 0));
        h.advance(INTERVAL);
        assertThat(h.tasks.triggers).hasSize(1);
        softDecline(h, 1);

        h.advance(199);
        assertThat(h.tasks.triggers).hasSize(1);
        h.advance(1);
        assertThat(h.tasks.triggers).hasSize(2);
        assertThat(h.tasks.triggers.get(1).timestampMs()).isEqualTo(INTERVAL + 200);

        // Not a soft decline: back to the interval.
        h.coordinator.decline(SOURCE_0, 2, CheckpointFailureReason.SNAPSHOT_UNAVAILABLE_HARD, "position lost");
        h.settle();
        h.advance(INTERVAL - 1);
        assertThat(h.tasks.triggers).hasSize(2);
        h.advance(1);
        assertThat(h.tasks.triggers).hasSize(3);
    }

    @Test
    void softDeclinesInARowBackOffDoublingUpToTheIntervalAndACompletionMakesTheNextRetryQuickAgain() {
        CoordinatorHarness h = started(config(0, 200, 0));
        h.advance(INTERVAL);
        for (long delay : new long[] {200, 400, 800, INTERVAL, INTERVAL}) {
            declineLatestAndExpectTheNextTriggerAfter(h, delay);
        }
        assertThat(h.tasks.triggers).extracting(CheckpointTrigger::timestampMs)
                .containsExactly(1_000L, 1_200L, 1_600L, 2_400L, 3_400L, 4_400L);

        h.ackAll(h.tasks.triggers.get(5).checkpointId());
        h.advance(INTERVAL);
        declineLatestAndExpectTheNextTriggerAfter(h, 200);
    }

    private static void declineLatestAndExpectTheNextTriggerAfter(CoordinatorHarness h, long delayMs) {
        int triggered = h.tasks.triggers.size();
        softDecline(h, h.tasks.triggers.get(triggered - 1).checkpointId());
        h.advance(delayMs - 1);
        assertThat(h.tasks.triggers).as("%d ms after a soft decline at %d", delayMs - 1, h.main.now() - delayMs + 1)
                .hasSize(triggered);
        h.advance(1);
        assertThat(h.tasks.triggers).hasSize(triggered + 1);
    }

    @Test
    void withoutARetryDelayASoftDeclineWaitsForTheInterval() {
        CoordinatorHarness h = started(config(0, 0, 0));
        h.advance(INTERVAL);
        softDecline(h, 1);

        h.advance(INTERVAL - 1);
        assertThat(h.tasks.triggers).hasSize(1);
        h.advance(1);
        assertThat(h.tasks.triggers).hasSize(2);
    }

    @Test
    void anEnumeratorThatCannotSnapshotDeclinesSoftlyOrHardlyAndOnlyTheHardOneCounts() {
        CoordinatorHarness h = started(config(0, 200, 0));
        h.coordinators.next = java.util.concurrent.CompletableFuture.failedFuture(new SnapshotDeclinedException(
                "source 'orders'", io.duraflow.api.checkpoint.SnapshotAvailability.softFailure("chunk 4 open")));
        h.advance(INTERVAL);

        assertThat(h.coordinator.history()).singleElement().satisfies(stats ->
                assertThat(stats.toString()).contains("SNAPSHOT_UNAVAILABLE_SOFT").contains("chunk 4 open"));
        assertThat(h.tasks.triggers).as("no source was triggered").isEmpty();
        assertThat(h.jobFailures).isEmpty();

        // Retried after the soft-decline delay; a hard decline there counts (tolerance 0: failover).
        h.coordinators.next = java.util.concurrent.CompletableFuture.failedFuture(new SnapshotDeclinedException(
                "source 'orders'", io.duraflow.api.checkpoint.SnapshotAvailability.hardFailure("offsets lost")));
        h.advance(200);
        assertThat(h.jobFailures).singleElement().satisfies(cause ->
                assertThat(cause).contains("SNAPSHOT_UNAVAILABLE_HARD").contains("offsets lost"));
    }
}
