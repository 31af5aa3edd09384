package io.duraflow.checkpoint;

import static io.duraflow.checkpoint.CheckpointFailureReason.SNAPSHOT_UNAVAILABLE_HARD;
import static io.duraflow.checkpoint.CheckpointFailureReason.SNAPSHOT_UNAVAILABLE_SOFT;
import static io.duraflow.checkpoint.CoordinatorHarness.SOURCE_0;
import static io.duraflow.checkpoint.CoordinatorHarness.SOURCE_1;
import static io.duraflow.checkpoint.CoordinatorHarness.SUM_0;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The rules of {@link CheckpointDeclines}: a soft decline never hides a hard one of another task,
 * whichever comes first, and the history shows every decline; on a coordinator with a manual clock.
 */
class CheckpointDeclinesTest {
    private static final long INTERVAL = 1_000;
    private static final long TIMEOUT = 10_000;

    @TempDir
    Path tmp;

    private CoordinatorHarness started(int tolerable) {
        CoordinatorHarness h = new CoordinatorHarness(tmp, CoordinatorHarness.config(INTERVAL, TIMEOUT, 0, 1,
                tolerable, 1));
        h.coordinator.startPeriodic();
        h.advance(INTERVAL);
        return h;
    }

    private static void decline(CoordinatorHarness h, CheckpointTask task, long checkpointId,
            CheckpointFailureReason reason, String message) {
        h.coordinator.decline(task, checkpointId, reason, message);
        h.settle();
    }

    private static CheckpointStats entry(CoordinatorHarness h, long checkpointId) {
        return h.coordinator.history().stream().filter(s -> s.checkpointId() == checkpointId).findFirst()
                .orElseThrow();
    }

    private static String describe(CheckpointFailure decline) {
        return decline.task() + " " + decline.reason() + ": " + decline.message();
    }

    @Test
    void rule3AHardDeclineAfterASoftOneOfAnotherTaskIsAHardFailureThatCounts() {
        CoordinatorHarness h = started(0);
        decline(h, SOURCE_0, 1, SNAPSHOT_UNAVAILABLE_SOFT, "chunk 4 open");
        assertThat(h.jobFailures).isEmpty();

        decline(h, SOURCE_1, 1, SNAPSHOT_UNAVAILABLE_HARD, "offsets lost");

        assertThat(h.jobFailures).singleElement().satisfies(cause -> assertThat(cause)
                .contains("tolerable-failed-checkpoints", "SNAPSHOT_UNAVAILABLE_HARD", "offsets lost"));
        CheckpointStats stats = entry(h, 1);
        assertThat(stats.failure().reason()).isEqualTo(SNAPSHOT_UNAVAILABLE_HARD);
        assertThat(stats.declines()).extracting(CheckpointDeclinesTest::describe).containsExactly(
                "vertex 0 subtask 0 attempt 0 SNAPSHOT_UNAVAILABLE_SOFT: chunk 4 open",
                "vertex 0 subtask 1 attempt 0 SNAPSHOT_UNAVAILABLE_HARD: offsets lost");
        CheckpointTotals totals = h.coordinator.totals();
        assertThat(totals.failed(SNAPSHOT_UNAVAILABLE_SOFT)).isZero();
        assertThat(totals.failed(SNAPSHOT_UNAVAILABLE_HARD)).isEqualTo(1);
    }

    @Test
    void rule2AHardDeclineFirstCountsOnceAndLaterSoftOnesAreOnlyRecorded() {
        CoordinatorHarness h = started(1);
        decline(h, SOURCE_1, 1, SNAPSHOT_UNAVAILABLE_HARD, "offsets lost");
        decline(h, SOURCE_0, 1, SNAPSHOT_UNAVAILABLE_SOFT, "chunk 4 open");
        decline(h, SUM_0, 1, CheckpointFailureReason.DECLINED, "not ready");

        assertThat(h.jobFailures).isEmpty();
        assertThat(h.coordinator.failureManager().continuousFailures()).isEqualTo(1);
        assertThat(entry(h, 1).failure().reason()).isEqualTo(SNAPSHOT_UNAVAILABLE_HARD);
        assertThat(entry(h, 1).declines()).hasSize(3);
    }

    @Test
    void rule2SoftDeclinesOfSeveralTasksAreAllRecordedAndNeverCount() {
        CoordinatorHarness h = started(0);
        decline(h, SOURCE_0, 1, SNAPSHOT_UNAVAILABLE_SOFT, "chunk 4 open");
        decline(h, SOURCE_1, 1, SNAPSHOT_UNAVAILABLE_SOFT, "chunk 9 open");
        decline(h, SOURCE_1, 1, SNAPSHOT_UNAVAILABLE_HARD, "the same task again");

        assertThat(h.jobFailures).isEmpty();
        assertThat(entry(h, 1).declines()).extracting(CheckpointFailure::message)
                .containsExactly("chunk 4 open", "chunk 9 open");
    }

    @Test
    void rule1AHardDeclineAfterANewerCheckpointCompletedComesTooLate() {
        CoordinatorHarness h = started(0);
        decline(h, SOURCE_0, 1, SNAPSHOT_UNAVAILABLE_SOFT, "chunk 4 open");
        h.advance(INTERVAL);
        h.ackAll(2);

        decline(h, SOURCE_1, 1, SNAPSHOT_UNAVAILABLE_HARD, "offsets lost");

        assertThat(h.jobFailures).isEmpty();
        assertThat(entry(h, 1).declines()).hasSize(1);
    }

    @Test
    void rule1AHardDeclineAfterTheCheckpointsOwnTimeoutOrARestoreComesTooLate() {
        CoordinatorHarness h = started(0);
        decline(h, SOURCE_0, 1, SNAPSHOT_UNAVAILABLE_SOFT, "chunk 4 open");
        h.coordinator.stopPeriodic();
        h.advance(TIMEOUT + 1);
        decline(h, SOURCE_1, 1, SNAPSHOT_UNAVAILABLE_HARD, "offsets lost");
        assertThat(h.jobFailures).isEmpty();

        h.coordinator.triggerCheckpoint();
        h.settle();
        decline(h, SOURCE_0, 2, SNAPSHOT_UNAVAILABLE_SOFT, "chunk 5 open");
        h.coordinator.restoreLatest();
        h.settle();
        decline(h, SOURCE_1, 2, SNAPSHOT_UNAVAILABLE_HARD, "offsets lost");
        assertThat(h.jobFailures).isEmpty();
    }

    @Test
    void aDeclineByATaskTheCheckpointDidNotWaitForIsIgnored() {
        CoordinatorHarness h = started(0);
        decline(h, SOURCE_0, 1, SNAPSHOT_UNAVAILABLE_SOFT, "chunk 4 open");
        decline(h, new CheckpointTask(0, 1, 7), 1, SNAPSHOT_UNAVAILABLE_HARD, "an attempt it did not trigger");

        assertThat(h.jobFailures).isEmpty();
        assertThat(entry(h, 1).declines()).hasSize(1);
    }
}
