package io.duraflow.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.fs.FsPath;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class CheckpointHistoryTest {
    private static final CheckpointTask TASK = new CheckpointTask(0, 0, 0);

    private static PendingCheckpoint pending(long checkpointId) {
        return new PendingCheckpoint("job-1", checkpointId, checkpointId, 10 * checkpointId, CheckpointKind.CHECKPOINT,
                new CheckpointPlan(List.of(TASK), Set.of(TASK), Map.of("source", 1)),
                FsPath.parse("/tmp/chk-" + checkpointId));
    }

    @Test
    void keepsTheLastEndedCheckpointsOldestFirstThenThoseInProgress() {
        CheckpointHistory history = new CheckpointHistory();
        for (long id = 1; id <= CheckpointHistory.SIZE + 5; id++) {
            history.record(pending(id), CheckpointStats.Status.COMPLETED, null, 10 * id + 3);
        }
        CheckpointFailure failure = new CheckpointFailure(106, CheckpointFailureReason.EXPIRED, "too slow", null);
        history.record(pending(106), CheckpointStats.Status.FAILED, failure, 1_065);

        List<CheckpointStats> all = history.withInProgress(List.of(pending(107)));

        assertThat(all).hasSize(CheckpointHistory.SIZE + 1);
        assertThat(all.get(0).checkpointId()).isEqualTo(7);
        assertThat(all.get(0).durationMs(0)).isEqualTo(3);
        assertThat(all.get(CheckpointHistory.SIZE - 1)).satisfies(stats -> {
            assertThat(stats.status()).isEqualTo(CheckpointStats.Status.FAILED);
            assertThat(stats.failure()).isEqualTo(failure);
        });
        assertThat(all.get(CheckpointHistory.SIZE)).satisfies(stats -> {
            assertThat(stats.checkpointId()).isEqualTo(107);
            assertThat(stats.status()).isEqualTo(CheckpointStats.Status.IN_PROGRESS);
            assertThat(stats.endMs()).isZero();
        });
    }

    @Test
    void totalsCountEveryEndedCheckpointByReasonAndDuration() {
        CheckpointHistory history = new CheckpointHistory();
        // pending(id) was triggered at 10 * id ms
        history.record(pending(1), CheckpointStats.Status.COMPLETED, null, 10 + 40);
        history.record(pending(2), CheckpointStats.Status.COMPLETED, null, 20 + 3_000);
        history.record(pending(3), CheckpointStats.Status.FAILED, new CheckpointFailure(3,
                CheckpointFailureReason.SNAPSHOT_UNAVAILABLE_SOFT, "not now", null), 40);
        history.record(pending(4), CheckpointStats.Status.FAILED, new CheckpointFailure(4,
                CheckpointFailureReason.SNAPSHOT_UNAVAILABLE_SOFT, "not now", null), 50);
        history.record(pending(5), CheckpointStats.Status.FAILED, new CheckpointFailure(5,
                CheckpointFailureReason.SNAPSHOT_UNAVAILABLE_HARD, "wrong", null), 60);

        CheckpointTotals totals = history.totals(2);

        assertThat(totals.completed()).isEqualTo(2);
        assertThat(totals.failed()).isEqualTo(3);
        assertThat(totals.failed(CheckpointFailureReason.SNAPSHOT_UNAVAILABLE_SOFT)).isEqualTo(2);
        assertThat(totals.failed(CheckpointFailureReason.SNAPSHOT_UNAVAILABLE_HARD)).isEqualTo(1);
        assertThat(totals.failed(CheckpointFailureReason.EXPIRED)).isZero();
        assertThat(totals.inProgress()).isEqualTo(2);
        assertThat(totals.latestCompleted().checkpointId()).isEqualTo(2);
        assertThat(totals.durationSumSeconds()).isCloseTo(3.04, org.assertj.core.data.Offset.offset(1e-9));
        double[] bounds = totals.durationUpperBoundsSeconds();
        long[] counts = totals.durationCounts();
        assertThat(bounds[bounds.length - 1]).isEqualTo(Double.POSITIVE_INFINITY);
        assertThat(counts[0]).as("0.04 s <= the first bound, %s", bounds[0]).isEqualTo(1);
        int threeSeconds = 0;
        while (bounds[threeSeconds] < 3.0) {
            threeSeconds++;
        }
        assertThat(counts[threeSeconds]).as("3 s in the bucket up to %s", bounds[threeSeconds]).isEqualTo(1);
        assertThat(java.util.Arrays.stream(counts).sum()).isEqualTo(2);
    }
}
