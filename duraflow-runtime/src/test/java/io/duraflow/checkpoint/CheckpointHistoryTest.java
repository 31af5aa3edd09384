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
}
