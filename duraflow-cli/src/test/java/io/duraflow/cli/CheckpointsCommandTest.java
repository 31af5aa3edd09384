package io.duraflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.rpc.proto.CheckpointSummary;
import io.duraflow.rpc.proto.JobCheckpoints;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The table {@code duraflow checkpoints ID} prints, from a report as the JobManager sends it. */
class CheckpointsCommandTest {
    private static final long T0 = Instant.parse("2026-12-01T10:15:30Z").toEpochMilli();

    private static CheckpointSummary.Builder checkpoint(long id, String status) {
        return CheckpointSummary.newBuilder().setCheckpointId(id).setKind("CHECKPOINT").setStatus(status)
                .setTriggerMs(T0 + id * 1000);
    }

    @Test
    void theHeaderSaysIntervalCountsLatestAndRestoreThenOneRowPerCheckpointNewestLast() {
        JobCheckpoints report = JobCheckpoints.newBuilder().setJobId("job-1").setIntervalMs(1000).setCompleted(2)
                .setFailed(1).setLatestCompletedId(2).setLatestCompletedPath("/ckpt/job-1/chk-2/_metadata")
                .setRestoredFromId(1).setRestoredFromPath("/ckpt/job-1/chk-1/_metadata")
                .addCheckpoints(checkpoint(1, "COMPLETED").setDurationMs(850).setStateSizeBytes(1536).setFiles(4)
                        .setCheckpointedSizeBytes(1536).setFilesUploaded(4).setPath("/ckpt/job-1/chk-1"))
                .addCheckpoints(checkpoint(2, "COMPLETED").setDurationMs(1250).setStateSizeBytes(20L << 20)
                        .setFiles(12).setCheckpointedSizeBytes(2L << 20).setFilesUploaded(3).setFilesReused(9)
                        .setPath("/ckpt/job-1/chk-2"))
                .addCheckpoints(checkpoint(3, "FAILED").setDurationMs(12).setFailureReason("SNAPSHOT_UNAVAILABLE_SOFT")
                        .setFailureTask("vertex 0 subtask 1").setFailureMessage("the reader is between files"))
                .addCheckpoints(checkpoint(4, "IN_PROGRESS").setDurationMs(125_000).setKind("SAVEPOINT")
                        .setPath("/sp/savepoint-job-1-4"))
                .build();

        List<String> lines = CheckpointsCommand.format(report);

        assertThat(lines).containsExactly(
                "Job job-1: checkpoint interval 1.0 s, 2 completed, 1 failed",
                "  latest completed: 2 at /ckpt/job-1/chk-2/_metadata",
                "  restored from:    1 at /ckpt/job-1/chk-1/_metadata",
                "ID     KIND       STATUS      TRIGGERED (UTC)      DURATION FULL SIZE INCR SIZE UPLOADED REUSED"
                        + "  REASON / PATH",
                "1      CHECKPOINT completed   2026-12-01 10:15:31    850 ms   1.5 KiB   1.5 KiB        4      0",
                "2      CHECKPOINT completed   2026-12-01 10:15:32     1.3 s  20.0 MiB   2.0 MiB        3      9",
                "3      CHECKPOINT failed      2026-12-01 10:15:33     12 ms       0 B       0 B        0      0"
                        + "  SNAPSHOT_UNAVAILABLE_SOFT (vertex 0 subtask 1): the reader is between files",
                "4      SAVEPOINT  in progress 2026-12-01 10:15:34    2m 05s       0 B       0 B        0      0"
                        + "  /sp/savepoint-job-1-4");
    }

    @Test
    void aJobManagerThatSendsNoIncrementalFiguresShowsDashesNotZeros() {
        CheckpointSummary old = checkpoint(5, "COMPLETED").setDurationMs(40).setStateSizeBytes(512).setFiles(2)
                .build();

        assertThat(CheckpointsCommand.row(old)).isEqualTo(
                "5      CHECKPOINT completed   2026-12-01 10:15:35     40 ms     512 B         -        -      -");
    }

    @Test
    void aJobWithoutCheckpointsYetSaysSoAndThatItStartedFromEmptyState() {
        JobCheckpoints report = JobCheckpoints.newBuilder().setJobId("job-2").setIntervalMs(0).build();

        assertThat(CheckpointsCommand.format(report)).containsExactly(
                "Job job-2: checkpoint interval none (only when asked), 0 completed, 0 failed",
                "  latest completed: none",
                "  restored from:    nothing (started from empty state)",
                "No checkpoints yet");
    }

    @Test
    void aCheckpointDeclinedByTwoTasksShowsTheHardDeclineThenTheSoftOne() {
        CheckpointSummary declined = checkpoint(9, "FAILED").setFailureReason("SNAPSHOT_UNAVAILABLE_HARD")
                .setFailureTask("vertex 0 subtask 1").setFailureMessage("offsets lost")
                .addDeclines(io.duraflow.rpc.proto.CheckpointDecline.newBuilder().setTask("vertex 0 subtask 0")
                        .setReason("SNAPSHOT_UNAVAILABLE_SOFT").setMessage("chunk 4 open"))
                .addDeclines(io.duraflow.rpc.proto.CheckpointDecline.newBuilder().setTask("vertex 0 subtask 1")
                        .setReason("SNAPSHOT_UNAVAILABLE_HARD").setMessage("offsets lost"))
                .build();

        assertThat(CheckpointsCommand.reason(declined)).isEqualTo("SNAPSHOT_UNAVAILABLE_HARD (vertex 0 subtask 1):"
                + " offsets lost; also SNAPSHOT_UNAVAILABLE_SOFT (vertex 0 subtask 0): chunk 4 open");
    }

    @Test
    void aFailureWithoutATaskShowsItsReasonAndMessage() {
        CheckpointSummary expired = checkpoint(7, "FAILED").setFailureReason("EXPIRED")
                .setFailureMessage("not complete within 10 s").build();

        assertThat(CheckpointsCommand.reason(expired)).isEqualTo("EXPIRED: not complete within 10 s");
        assertThat(CheckpointsCommand.reason(checkpoint(8, "COMPLETED").build())).isEmpty();
    }

    @Test
    void sizesAndDurationsAreReadable() {
        assertThat(CheckpointsCommand.bytes(0)).isEqualTo("0 B");
        assertThat(CheckpointsCommand.bytes(1023)).isEqualTo("1023 B");
        assertThat(CheckpointsCommand.bytes(1024)).isEqualTo("1.0 KiB");
        assertThat(CheckpointsCommand.bytes(3L << 30)).isEqualTo("3.0 GiB");
        assertThat(CheckpointsCommand.duration(0)).isEqualTo("0 ms");
        assertThat(CheckpointsCommand.duration(59_999)).isEqualTo("60.0 s");
        assertThat(CheckpointsCommand.duration(60_000)).isEqualTo("1m 00s");
    }
}
