package io.duraflow.exchange.pipelined;

import io.duraflow.rpc.proto.StreamBarrier;
import io.duraflow.rpc.proto.StreamCancelCheckpoint;
import io.duraflow.rpc.proto.StreamEndOfPartition;
import io.duraflow.rpc.proto.StreamEvent;

/** {@link NetworkEvent}s as the {@code StreamEvent} messages of the PartitionStreams service. */
final class StreamEvents {
    private StreamEvents() {
    }

    static StreamEvent toProto(NetworkEvent event) {
        StreamEvent.Builder builder = StreamEvent.newBuilder();
        if (event instanceof NetworkEvent.CheckpointBarrier barrier) {
            StreamBarrier.Builder wire = StreamBarrier.newBuilder().setCheckpointId(barrier.checkpointId())
                    .setTimestampMs(barrier.timestampMs())
                    .setSavepoint(barrier.kind() == NetworkEvent.CheckpointKind.SAVEPOINT)
                    .setFull(barrier.kind() == NetworkEvent.CheckpointKind.FULL_CHECKPOINT);
            if (barrier.savepointDirectory() != null) {
                wire.setSavepointDirectory(barrier.savepointDirectory());
            }
            builder.setBarrier(wire);
        } else if (event instanceof NetworkEvent.CancelCheckpointMarker marker) {
            builder.setCancelCheckpoint(StreamCancelCheckpoint.newBuilder().setCheckpointId(marker.checkpointId()));
        } else if (event instanceof NetworkEvent.EndOfPartition) {
            builder.setEndOfPartition(StreamEndOfPartition.getDefaultInstance());
        } else if (event instanceof NetworkEvent.Watermark watermark) {
            builder.setWatermark(io.duraflow.rpc.proto.StreamWatermark.newBuilder().setTimestamp(watermark.timestamp()));
        } else if (event instanceof NetworkEvent.WatermarkStatus status) {
            builder.setWatermarkStatus(io.duraflow.rpc.proto.StreamWatermarkStatus.newBuilder().setIdle(status.idle()));
        } else {
            throw new IllegalArgumentException("no wire form for event " + event);
        }
        return builder.build();
    }

    private static NetworkEvent.CheckpointBarrier barrier(StreamBarrier barrier) {
        if (barrier.getSavepoint()) {
            return new NetworkEvent.CheckpointBarrier(barrier.getCheckpointId(), barrier.getTimestampMs(),
                    NetworkEvent.CheckpointKind.SAVEPOINT, barrier.getSavepointDirectory());
        }
        return new NetworkEvent.CheckpointBarrier(barrier.getCheckpointId(), barrier.getTimestampMs(),
                barrier.getFull() ? NetworkEvent.CheckpointKind.FULL_CHECKPOINT : NetworkEvent.CheckpointKind.CHECKPOINT);
    }

    /**
     * @throws IllegalArgumentException for an event this version does not know (sent by a newer producer)
     */
    static NetworkEvent fromProto(StreamEvent event) {
        return switch (event.getKindCase()) {
            case BARRIER -> barrier(event.getBarrier());
            case CANCEL_CHECKPOINT -> new NetworkEvent.CancelCheckpointMarker(event.getCancelCheckpoint().getCheckpointId());
            case END_OF_PARTITION -> NetworkEvent.EndOfPartition.INSTANCE;
            case WATERMARK -> new NetworkEvent.Watermark(event.getWatermark().getTimestamp());
            case WATERMARK_STATUS -> event.getWatermarkStatus().getIdle() ? NetworkEvent.WatermarkStatus.IDLE
                    : NetworkEvent.WatermarkStatus.ACTIVE;
            case KIND_NOT_SET -> throw new IllegalArgumentException("stream event of a kind this Duraflow version does not"
                    + " know; run the same Duraflow version on every task manager");
        };
    }
}
