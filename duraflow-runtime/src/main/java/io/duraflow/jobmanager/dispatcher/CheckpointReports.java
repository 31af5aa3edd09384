package io.duraflow.jobmanager.dispatcher;

import io.duraflow.checkpoint.CheckpointFailure;
import io.duraflow.checkpoint.CheckpointOverview;
import io.duraflow.checkpoint.CheckpointStats;
import io.duraflow.checkpoint.CompletedCheckpoint;
import io.duraflow.rpc.proto.CheckpointSummary;
import io.duraflow.rpc.proto.JobCheckpoints;

/** A coordinator's {@link CheckpointOverview} as the client RPC carries it: pure. */
final class CheckpointReports {
    private CheckpointReports() {
    }

    static JobCheckpoints toProto(String jobId, CheckpointOverview overview, long nowMs) {
        JobCheckpoints.Builder report = JobCheckpoints.newBuilder().setJobId(jobId)
                .setIntervalMs(overview.intervalMs()).setCompleted(overview.completed())
                .setFailed(overview.failed()).setNowMs(nowMs);
        if (overview.latestCompleted().isPresent()) {
            CompletedCheckpoint latest = overview.latestCompleted().get();
            report.setLatestCompletedId(latest.checkpointId()).setLatestCompletedPath(latest.metadataFile().toString());
        }
        if (overview.restoredFrom().isPresent()) {
            CompletedCheckpoint restored = overview.restoredFrom().get();
            report.setRestoredFromId(restored.checkpointId()).setRestoredFromPath(restored.metadataFile().toString());
        }
        for (CheckpointStats stats : overview.history()) {
            report.addCheckpoints(toProto(stats, nowMs));
        }
        return report.build();
    }

    static CheckpointSummary toProto(CheckpointStats stats, long nowMs) {
        CheckpointSummary.Builder summary = CheckpointSummary.newBuilder().setCheckpointId(stats.checkpointId())
                .setKind(stats.kind().name()).setStatus(stats.status().name()).setTriggerMs(stats.triggerMs())
                .setDurationMs(Math.max(0, stats.durationMs(nowMs))).setStateSizeBytes(stats.stateSize())
                .setFiles(stats.files()).setCheckpointedSizeBytes(stats.checkpointedSize())
                .setFilesUploaded(stats.filesUploaded()).setFilesReused(stats.filesReused())
                .setPath(stats.directory() == null ? "" : stats.directory().toString());
        CheckpointFailure failure = stats.failure();
        if (failure != null) {
            summary.setFailureReason(failure.reason().name()).setFailureMessage(failure.message())
                    .setFailureTask(failure.task() == null ? "" : failure.task());
        }
        for (CheckpointFailure decline : stats.declines()) {
            summary.addDeclines(io.duraflow.rpc.proto.CheckpointDecline.newBuilder().setReason(decline.reason().name())
                    .setMessage(decline.message()).setTask(decline.task() == null ? "" : decline.task()));
        }
        return summary.build();
    }
}
