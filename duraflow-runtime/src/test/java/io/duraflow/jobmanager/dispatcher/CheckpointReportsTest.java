package io.duraflow.jobmanager.dispatcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.checkpoint.CheckpointFailure;
import io.duraflow.checkpoint.CheckpointFailureReason;
import io.duraflow.checkpoint.CheckpointKind;
import io.duraflow.checkpoint.CheckpointOverview;
import io.duraflow.checkpoint.CheckpointStats;
import io.duraflow.checkpoint.CompletedCheckpoint;
import io.duraflow.fs.FsPath;
import io.duraflow.rpc.proto.CheckpointSummary;
import io.duraflow.rpc.proto.JobCheckpoints;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class CheckpointReportsTest {
    private static CompletedCheckpoint completed(long id) {
        return new CompletedCheckpoint("job-1", id, 1_000 * id, 1_000 * id + 50, 128, CheckpointKind.CHECKPOINT,
                Map.of(), FsPath.parse("/ckpt/job-1/chk-" + id + "/_metadata"));
    }

    @Test
    void carriesCountsPathsAndEveryCheckpointWithItsFailureReasonKind() {
        CheckpointFailure soft = new CheckpointFailure(3, CheckpointFailureReason.SNAPSHOT_UNAVAILABLE_SOFT,
                "between files", "vertex 0 subtask 1");
        CheckpointOverview overview = new CheckpointOverview(1_000, 2, 1, Optional.of(completed(2)),
                Optional.of(completed(1)), List.of(
                        new CheckpointStats(2, CheckpointKind.CHECKPOINT, CheckpointStats.Status.COMPLETED, 2_000,
                                2_300, 4_096, 1_024, 3, 1, 2, FsPath.parse("/ckpt/job-1/chk-2"), null),
                        new CheckpointStats(3, CheckpointKind.CHECKPOINT, CheckpointStats.Status.FAILED, 3_000, 3_010,
                                0, 0, 0, 0, 0, FsPath.parse("/ckpt/job-1/chk-3"), soft),
                        new CheckpointStats(4, CheckpointKind.SAVEPOINT, CheckpointStats.Status.IN_PROGRESS, 4_000, 0,
                                10, 10, 1, 1, 0, FsPath.parse("/sp/savepoint-job-1-4"), null)));

        JobCheckpoints report = CheckpointReports.toProto("job-1", overview, 4_500);

        assertThat(report.getIntervalMs()).isEqualTo(1_000);
        assertThat(report.getCompleted()).isEqualTo(2);
        assertThat(report.getFailed()).isEqualTo(1);
        assertThat(report.getLatestCompletedId()).isEqualTo(2);
        assertThat(report.getLatestCompletedPath()).isEqualTo("/ckpt/job-1/chk-2/_metadata");
        assertThat(report.getRestoredFromId()).isEqualTo(1);
        assertThat(report.getRestoredFromPath()).isEqualTo("/ckpt/job-1/chk-1/_metadata");
        assertThat(report.getNowMs()).isEqualTo(4_500);
        assertThat(report.getCheckpointsList()).containsExactly(
                CheckpointSummary.newBuilder().setCheckpointId(2).setKind("CHECKPOINT").setStatus("COMPLETED")
                        .setTriggerMs(2_000).setDurationMs(300).setStateSizeBytes(4_096).setFiles(3)
                        .setCheckpointedSizeBytes(1_024).setFilesUploaded(1).setFilesReused(2)
                        .setPath("/ckpt/job-1/chk-2").build(),
                CheckpointSummary.newBuilder().setCheckpointId(3).setKind("CHECKPOINT").setStatus("FAILED")
                        .setTriggerMs(3_000).setDurationMs(10).setFailureReason("SNAPSHOT_UNAVAILABLE_SOFT")
                        .setFailureMessage("between files").setFailureTask("vertex 0 subtask 1")
                        .setPath("/ckpt/job-1/chk-3").addDeclines(io.duraflow.rpc.proto.CheckpointDecline.newBuilder()
                                .setTask("vertex 0 subtask 1").setReason("SNAPSHOT_UNAVAILABLE_SOFT")
                                .setMessage("between files")).build(),
                CheckpointSummary.newBuilder().setCheckpointId(4).setKind("SAVEPOINT").setStatus("IN_PROGRESS")
                        .setTriggerMs(4_000).setDurationMs(500).setStateSizeBytes(10).setFiles(1)
                        .setCheckpointedSizeBytes(10).setFilesUploaded(1).setPath("/sp/savepoint-job-1-4").build());
    }

    @Test
    void aJobWithoutCheckpointsHasNoLatestAndNoRestore() {
        JobCheckpoints report = CheckpointReports.toProto("job-1",
                new CheckpointOverview(0, 0, 0, Optional.empty(), Optional.empty(), List.of()), 7);

        assertThat(report.getLatestCompletedId()).isZero();
        assertThat(report.getLatestCompletedPath()).isEmpty();
        assertThat(report.getRestoredFromId()).isZero();
        assertThat(report.getCheckpointsList()).isEmpty();
    }
}
