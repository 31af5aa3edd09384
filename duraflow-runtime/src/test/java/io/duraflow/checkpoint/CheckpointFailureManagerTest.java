package io.duraflow.checkpoint;

import static io.duraflow.checkpoint.CheckpointFailureManager.Verdict.CONTINUE;
import static io.duraflow.checkpoint.CheckpointFailureManager.Verdict.FAIL_OVER;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CheckpointFailureManagerTest {
    private static CheckpointFailure failure(long id, CheckpointFailureReason reason) {
        return new CheckpointFailure(id, reason, "why", null);
    }

    @Test
    void rule1ReasonsThatDoNotCountNeverFailTheJob() {
        CheckpointFailureManager manager = new CheckpointFailureManager(0, 0);
        for (CheckpointFailureReason reason : CheckpointFailureReason.values()) {
            if (!reason.countsTowardTolerance()) {
                assertThat(manager.onFailure(failure(1, reason))).isEqualTo(CONTINUE);
            }
        }
        assertThat(manager.onFailure(failure(1, CheckpointFailureReason.EXPIRED))).isEqualTo(FAIL_OVER);
    }

    @Test
    void rule2EachCheckpointCountsOnce() {
        CheckpointFailureManager manager = new CheckpointFailureManager(1, 0);
        assertThat(manager.onFailure(failure(1, CheckpointFailureReason.DECLINED))).isEqualTo(CONTINUE);
        assertThat(manager.onFailure(failure(1, CheckpointFailureReason.SNAPSHOT_UNAVAILABLE_HARD))).isEqualTo(CONTINUE);
        assertThat(manager.continuousFailures()).isEqualTo(1);
        assertThat(manager.onFailure(failure(2, CheckpointFailureReason.IO_FAILURE))).isEqualTo(FAIL_OVER);
    }

    @Test
    void rule3ACompletionResetsAndOlderFailuresComeTooLateToCount() {
        CheckpointFailureManager manager = new CheckpointFailureManager(1, 0);
        manager.onFailure(failure(1, CheckpointFailureReason.DECLINED));
        manager.onSuccess(3, 500);
        assertThat(manager.continuousFailures()).isZero();
        assertThat(manager.lastSuccessMs()).isEqualTo(500);
        assertThat(manager.onFailure(failure(2, CheckpointFailureReason.EXPIRED))).isEqualTo(CONTINUE);
        assertThat(manager.continuousFailures()).isZero();
    }

    @Test
    void rule4AfterAFailOverTheCountStartsAgain() {
        CheckpointFailureManager manager = new CheckpointFailureManager(1, 0);
        manager.onFailure(failure(1, CheckpointFailureReason.DECLINED));
        assertThat(manager.onFailure(failure(2, CheckpointFailureReason.DECLINED))).isEqualTo(FAIL_OVER);
        assertThat(manager.onFailure(failure(3, CheckpointFailureReason.DECLINED))).isEqualTo(CONTINUE);
        assertThat(manager.onFailure(failure(4, CheckpointFailureReason.DECLINED))).isEqualTo(FAIL_OVER);
    }

    @Test
    void rule5TheWindowMovesWithEveryCompletionButNotWithSoftDeclines() {
        CheckpointFailureManager manager = new CheckpointFailureManager(0, 1_000, 0);
        manager.onTasksRunning();
        manager.onFailure(failure(1, CheckpointFailureReason.SNAPSHOT_UNAVAILABLE_SOFT));
        assertThat(manager.deadlineMs()).isEqualTo(1_000);
        manager.onSuccess(2, 600);
        assertThat(manager.deadlineMs()).isEqualTo(1_600);
        assertThat(new CheckpointFailureManager(0, 0).deadlineMs()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void rule6TheTimeoutNamesTheLastFailureSoftOnesIncludedAndStartsANewWindow() {
        CheckpointFailureManager manager = new CheckpointFailureManager(5, 1_000, 0);
        manager.onFailure(failure(1, CheckpointFailureReason.SNAPSHOT_UNAVAILABLE_SOFT));
        assertThat(manager.onTimeoutCheck(999)).isEmpty();
        assertThat(manager.onTimeoutCheck(1_000)).hasValueSatisfying(cause -> assertThat(cause)
                .startsWith("no checkpoint completed within 1000 ms").contains("SNAPSHOT_UNAVAILABLE_SOFT"));
        assertThat(manager.deadlineMs()).isEqualTo(2_000);
        assertThat(manager.onTimeoutCheck(2_000)).hasValueSatisfying(cause -> assertThat(cause)
                .endsWith("none was declined or failed in that time"));
    }

    @Test
    void rule7TheFirstRestoreSetsTheRecordedWindowEvenEarlierThanTheCoordinatorsStartLaterOnesOnlyMoveItOn() {
        // A new leader's coordinator made at 5,000; the job's window started at 4,200 (recorded).
        CheckpointFailureManager manager = new CheckpointFailureManager(0, 1_000, 5_000);
        manager.restoredWindow(4_200);
        assertThat(manager.deadlineMs()).isEqualTo(5_200);
        // A task failover restores again: an older completion does not move the window back.
        manager.onSuccess(1, 6_000);
        manager.restoredWindow(4_200);
        assertThat(manager.deadlineMs()).isEqualTo(7_000);
    }

    @Test
    void rule8AWindowThatRanOutWhileTheTasksRestartedFailsTheJobOnlyAfterAFailureSinceTheyRun() {
        CheckpointFailureManager manager = new CheckpointFailureManager(5, 1_000, 0);
        manager.onTasksRunning();
        manager.onFailure(failure(1, CheckpointFailureReason.SNAPSHOT_UNAVAILABLE_SOFT));
        // The tasks restart (another cause) and run again after the deadline.
        manager.onTasksRunning();
        assertThat(manager.onTimeoutCheck(1_500)).as("the moment the tasks run again").isEmpty();
        // Failures that are no attempt of the restarted job do not end the grace.
        manager.onFailure(failure(2, CheckpointFailureReason.JOB_FAILOVER));
        manager.onFailure(failure(3, CheckpointFailureReason.NOT_ALL_TASKS_RUNNING));
        assertThat(manager.onTimeoutCheck(1_600)).isEmpty();

        manager.onFailure(failure(4, CheckpointFailureReason.SNAPSHOT_UNAVAILABLE_SOFT));

        assertThat(manager.onTimeoutCheck(1_700)).hasValueSatisfying(cause -> assertThat(cause)
                .contains("within 1000 ms").contains("checkpoint 4 failed (SNAPSHOT_UNAVAILABLE_SOFT"));
    }

    @Test
    void rule8ACompletionOfTheFirstAttemptAfterARestartMovesTheWindowInstead() {
        CheckpointFailureManager manager = new CheckpointFailureManager(5, 1_000, 0);
        manager.onTasksRunning();
        assertThat(manager.onTimeoutCheck(2_000)).isEmpty();
        manager.onSuccess(1, 2_100);
        manager.onFailure(failure(2, CheckpointFailureReason.SNAPSHOT_UNAVAILABLE_SOFT));
        assertThat(manager.onTimeoutCheck(3_099)).isEmpty();
        assertThat(manager.onTimeoutCheck(3_100)).isPresent();
    }
}
