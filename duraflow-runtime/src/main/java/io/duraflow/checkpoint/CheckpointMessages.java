package io.duraflow.checkpoint;

import io.duraflow.fs.FsPath;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.CheckpointFailureData;
import io.duraflow.rpc.proto.CheckpointMetricsData;

/**
 * Converts the coordinator's values to and from the protobuf messages of the checkpoint RPCs
 * (trigger, acknowledge, decline, notify; state handles go through {@link StateHandleCodec}).
 * Decoding throws {@link IllegalArgumentException} on values it cannot understand, for the RPC
 * layer to answer as an invalid argument.
 */
public final class CheckpointMessages {
    private CheckpointMessages() {
    }

    public static AttemptId toProto(String jobId, CheckpointTask task) {
        return AttemptId.newBuilder().setJobId(jobId).setVertex(task.vertex()).setSubtask(task.subtask())
                .setAttempt(task.attempt()).build();
    }

    public static CheckpointTask fromProto(AttemptId attempt) {
        return new CheckpointTask(attempt.getVertex(), attempt.getSubtask(), attempt.getAttempt());
    }

    public static io.duraflow.rpc.proto.CheckpointKind toProto(CheckpointKind kind) {
        return switch (kind) {
            case CHECKPOINT -> io.duraflow.rpc.proto.CheckpointKind.CHECKPOINT_KIND_CHECKPOINT;
            case SAVEPOINT -> io.duraflow.rpc.proto.CheckpointKind.CHECKPOINT_KIND_SAVEPOINT;
        };
    }

    public static CheckpointKind fromProto(io.duraflow.rpc.proto.CheckpointKind kind) {
        return switch (kind) {
            case CHECKPOINT_KIND_CHECKPOINT -> CheckpointKind.CHECKPOINT;
            case CHECKPOINT_KIND_SAVEPOINT -> CheckpointKind.SAVEPOINT;
            default -> throw new IllegalArgumentException("unknown checkpoint kind " + kind);
        };
    }

    public static io.duraflow.rpc.proto.TriggerCheckpointRequest toProto(String jobId, CheckpointTask task,
            CheckpointTrigger trigger) {
        return io.duraflow.rpc.proto.TriggerCheckpointRequest.newBuilder()
                .setAttempt(toProto(jobId, task))
                .setCheckpointId(trigger.checkpointId())
                .setTimestampMs(trigger.timestampMs())
                .setKind(toProto(trigger.kind()))
                .setDirectory(trigger.directory().toUri().toString())
                .setFull(trigger.full())
                .build();
    }

    public static CheckpointTrigger fromProto(io.duraflow.rpc.proto.TriggerCheckpointRequest request) {
        return new CheckpointTrigger(request.getCheckpointId(), request.getTimestampMs(), fromProto(request.getKind()),
                FsPath.parse(request.getDirectory()), request.getFull());
    }

    public static CheckpointMetricsData toProto(CheckpointMetrics metrics) {
        return CheckpointMetricsData.newBuilder()
                .setAlignmentMs(metrics.alignmentMs())
                .setSyncMs(metrics.syncMs())
                .setAsyncMs(metrics.asyncMs())
                .setBytesPersisted(metrics.bytesPersisted())
                .build();
    }

    public static CheckpointMetrics fromProto(CheckpointMetricsData data) {
        return new CheckpointMetrics(data.getAlignmentMs(), data.getSyncMs(), data.getAsyncMs(), data.getBytesPersisted());
    }

    public static CheckpointFailureData toProto(CheckpointFailure failure) {
        return CheckpointFailureData.newBuilder()
                .setCheckpointId(failure.checkpointId())
                .setReason(failure.reason().name())
                .setMessage(failure.message())
                .setTask(failure.task() == null ? "" : failure.task())
                .build();
    }

    public static CheckpointFailure fromProto(CheckpointFailureData data) {
        CheckpointFailureReason reason;
        try {
            reason = CheckpointFailureReason.valueOf(data.getReason());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown checkpoint failure reason '" + data.getReason() + "'");
        }
        return new CheckpointFailure(data.getCheckpointId(), reason, data.getMessage(),
                data.getTask().isEmpty() ? null : data.getTask());
    }
}
