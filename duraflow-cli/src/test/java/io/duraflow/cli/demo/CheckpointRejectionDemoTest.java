package io.duraflow.cli.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.rpc.proto.CheckpointSummary;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How the checkpoint-rejection demo measures from a chunk's end to the next completed checkpoint. */
class CheckpointRejectionDemoTest {
    private static CheckpointSummary completed(long id, long triggerMs, long durationMs) {
        return CheckpointSummary.newBuilder().setCheckpointId(id).setStatus("COMPLETED").setTriggerMs(triggerMs)
                .setDurationMs(durationMs).build();
    }

    private static CheckpointSummary failed(long id, long triggerMs, String reason) {
        return CheckpointSummary.newBuilder().setCheckpointId(id).setStatus("FAILED").setTriggerMs(triggerMs)
                .setFailureReason(reason).build();
    }

    @Test
    void measuresFromTheLastChunkEndAfterTheLastSoftDeclineToTheCompletion() {
        List<CheckpointSummary> checkpoints = List.of(
                completed(1, 1000, 50),                        // no decline before: not measured
                failed(2, 2000, "SNAPSHOT_UNAVAILABLE_SOFT"),
                failed(3, 2200, "SNAPSHOT_UNAVAILABLE_SOFT"),
                completed(4, 2400, 60),                        // readers ended chunks at 2250 and 2300
                failed(5, 3000, "SNAPSHOT_UNAVAILABLE_SOFT"),
                completed(6, 4000, 40));                       // the reader's chunk ended at 3100

        List<Long> latencies = CheckpointRejectionDemo.availableToCompleted(checkpoints,
                List.of(2100L, 2250L, 2300L, 3100L), Long.MAX_VALUE);

        assertThat(latencies).containsExactly(2460L - 2300L, 4040L - 3100L);
    }

    @Test
    void leavesOutPairsAcrossTheCrashAndCheckpointsFailedForOtherReasons() {
        List<CheckpointSummary> checkpoints = List.of(
                failed(1, 1000, "SNAPSHOT_UNAVAILABLE_SOFT"),
                failed(2, 1500, "JOB_FAILOVER"),
                completed(3, 9000, 50),                        // after the kill at 2000: not measured
                failed(4, 10_000, "SNAPSHOT_UNAVAILABLE_SOFT"),
                completed(5, 10_200, 50));

        assertThat(CheckpointRejectionDemo.availableToCompleted(checkpoints, List.of(1100L, 10_100L), 2000))
                .containsExactly(150L);
    }
}
