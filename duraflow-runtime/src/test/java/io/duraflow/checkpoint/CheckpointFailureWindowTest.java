package io.duraflow.checkpoint;

import static io.duraflow.checkpoint.CoordinatorHarness.SOURCE_0;
import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.fs.FsPath;
import io.duraflow.fs.LocalFileSystem;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The window of {@code tolerable-failed-checkpoints-timeout} across leader changes and restarts
 * ({@link CheckpointFailureManager} rules 7 and 8), with coordinators of successive leaders on the
 * same stores and manual clocks set to the same time: a source that declines every checkpoint
 * softly, a failure timeout of 20 s, a checkpoint every second.
 */
class CheckpointFailureWindowTest {
    private static final long INTERVAL = 1_000;
    private static final long FAILURE_TIMEOUT = 20_000;

    @TempDir
    Path tmp;

    private static CheckpointCoordinatorConfig config() {
        return new CheckpointCoordinatorConfig(INTERVAL, 10_000, 0, 1, 0, 1, CoordinatorHarness.MAX_PARALLELISM,
                FAILURE_TIMEOUT, 0);
    }

    /** A leader that takes over at {@code nowMs}: restores (or adopts the tasks) and starts the tasks' checkpoints. */
    private CoordinatorHarness leaderAt(long nowMs, boolean adopt) {
        CoordinatorHarness h = new CoordinatorHarness(tmp, config(), nowMs);
        if (adopt) {
            h.coordinator.restoreForAdoption();
        } else {
            h.coordinator.restoreLatest();
        }
        h.settle();
        h.coordinator.startPeriodic(adopt);
        h.settle();
        return h;
    }

    /** Runs {@code h} until {@code untilMs}, declining every checkpoint softly. */
    private static void declineSoftlyUntil(CoordinatorHarness h, long untilMs) {
        while (h.main.now() < untilMs && h.jobFailures.isEmpty()) {
            declineTriggered(h);
            h.advance(Math.min(100, untilMs - h.main.now()));
        }
        declineTriggered(h);
    }

    private static void declineTriggered(CoordinatorHarness h) {
        for (CheckpointStats stats : h.coordinator.history()) {
            if (stats.status() == CheckpointStats.Status.IN_PROGRESS) {
                h.coordinator.decline(SOURCE_0, stats.checkpointId(), CheckpointFailureReason.SNAPSHOT_UNAVAILABLE_SOFT,
                        "reading chunk 0");
                h.settle();
            }
        }
    }

    @ParameterizedTest(name = "adopting the tasks: {0}")
    @ValueSource(booleans = {false, true})
    void theWindowOfAJobWithoutACompletedCheckpointSurvivesAnyNumberOfLeaderChanges(boolean adopt) {
        CoordinatorHarness first = leaderAt(0, false);
        declineSoftlyUntil(first, 12_000);
        // SIGKILL: the first leader just stops. The next ones take over at 14 s and 17 s.
        CoordinatorHarness second = leaderAt(14_000, adopt);
        declineSoftlyUntil(second, 16_000);
        CoordinatorHarness third = leaderAt(17_000, adopt);

        declineSoftlyUntil(third, 19_999);
        assertThat(first.jobFailures).isEmpty();
        assertThat(second.jobFailures).isEmpty();
        assertThat(third.jobFailures).isEmpty();
        declineSoftlyUntil(third, 20_000);

        assertThat(third.jobFailures).singleElement().satisfies(cause -> assertThat(cause)
                .startsWith("no checkpoint completed within 20000 ms").contains("SNAPSHOT_UNAVAILABLE_SOFT"));
    }

    @Test
    void aNewLeaderCountsFromTheLaterOfTheJobsStartAndItsLatestCompletedCheckpoint() {
        CoordinatorHarness first = leaderAt(0, false);
        first.advance(INTERVAL);
        first.ackAll(first.tasks.triggers.get(0).checkpointId());
        declineSoftlyUntil(first, 12_000);

        CoordinatorHarness second = leaderAt(14_000, false);
        declineSoftlyUntil(second, 20_999);
        assertThat(second.jobFailures).isEmpty();
        declineSoftlyUntil(second, 21_000);
        assertThat(second.jobFailures).hasSize(1);
    }

    @Test
    void aFailoverByTheTimeLimitStartsAWindowThatTheNextLeaderKeeps() {
        CoordinatorHarness first = leaderAt(0, false);
        declineSoftlyUntil(first, 20_000);
        assertThat(first.jobFailures).hasSize(1);
        first.settle();

        CoordinatorHarness second = leaderAt(25_000, false);
        declineSoftlyUntil(second, 39_999);
        assertThat(second.jobFailures).as("the window the failover at 20 s started").isEmpty();
        declineSoftlyUntil(second, 40_000);
        assertThat(second.jobFailures).hasSize(1);
    }

    @Test
    void theJobsStartIsRecordedOnceANewLeaderReadsItAndDoesNotOverwriteIt() throws Exception {
        leaderAt(3_000, false);
        FailureWindowRecords records = new FailureWindowRecords(LocalFileSystem.INSTANCE,
                FileSystemCompletedCheckpointStore.pointerDirectory(FsPath.of(tmp.resolve("ha/jobs/"
                        + CoordinatorHarness.JOB))), CoordinatorHarness.JOB, () -> true);
        assertThat(records.latest()).isEqualTo(new FailureWindowRecords.Window(0, 3_000));

        leaderAt(9_000, true);
        leaderAt(11_000, false);

        assertThat(records.latest()).isEqualTo(new FailureWindowRecords.Window(0, 3_000));
    }

    @Test
    void aRestartForAnotherCauseIsNotFailedTheMomentItsTasksRunAgainButAfterItsFirstCheckpointFails() {
        CoordinatorHarness h = leaderAt(0, false);
        declineSoftlyUntil(h, 19_000);
        // A task fails at 19 s; the job is down until 23 s, past its deadline.
        h.coordinator.stopPeriodic();
        h.coordinator.abortPending(CheckpointFailureReason.JOB_FAILOVER, "a task failed");
        h.coordinator.restoreLatest();
        h.advance(4_000);
        h.coordinator.startPeriodic();
        h.settle();
        assertThat(h.jobFailures).as("when the tasks run again").isEmpty();

        h.advance(INTERVAL - 1);
        assertThat(h.jobFailures).isEmpty();
        h.advance(1);
        declineTriggered(h);

        assertThat(h.jobFailures).singleElement().satisfies(cause -> assertThat(cause)
                .contains("SNAPSHOT_UNAVAILABLE_SOFT"));
    }

    @Test
    void aRestartedJobWhoseFirstCheckpointCompletesGoesOnWithANewWindow() {
        CoordinatorHarness h = leaderAt(0, false);
        declineSoftlyUntil(h, 19_000);
        h.coordinator.stopPeriodic();
        h.coordinator.abortPending(CheckpointFailureReason.JOB_FAILOVER, "a task failed");
        h.coordinator.restoreLatest();
        h.advance(4_000);
        h.coordinator.startPeriodic();
        h.advance(INTERVAL);
        h.ackAll(h.tasks.triggers.get(h.tasks.triggers.size() - 1).checkpointId());

        declineSoftlyUntil(h, 43_999);
        assertThat(h.jobFailures).isEmpty();
        declineSoftlyUntil(h, 44_000);
        assertThat(h.jobFailures).hasSize(1);
    }
}
