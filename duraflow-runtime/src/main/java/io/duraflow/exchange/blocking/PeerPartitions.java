package io.duraflow.exchange.blocking;

import io.duraflow.rpc.PeerUnreachableException;
import io.duraflow.rpc.Rpc;
import io.duraflow.rpc.proto.FetchPartitionRequest;
import io.duraflow.rpc.proto.PartitionChunk;
import io.duraflow.rpc.proto.PartitionLocation;
import io.duraflow.rpc.proto.TaskManagerGatewayGrpc;
import io.duraflow.exchange.PartitionNotFoundException;
import io.grpc.Context;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/** Partitions fetched from other TaskManagers over gRPC, one channel per peer; used by task threads. */
final class PeerPartitions implements AutoCloseable {
    private final Map<String, ManagedChannel> channels = new ConcurrentHashMap<>();

    /**
     * Streams the whole frames of a subpartition range of a peer's partition to {@code frames}.
     *
     * @throws PartitionNotFoundException when the partition or its TaskManager is gone
     */
    void fetch(PartitionLocation location, int from, int to, Consumer<byte[]> frames) throws Exception {
        ManagedChannel channel = channels.computeIfAbsent(location.getTmAddress(), Rpc::channel);
        // The blocking iterator's call lives until it is drained or cancelled: if the consumer
        // throws, cancelling the context ends the call, and the producer closes its reader.
        Context.CancellableContext call = Context.current().withCancellation();
        try {
            call.run(() -> {
                Iterator<PartitionChunk> chunks = TaskManagerGatewayGrpc.newBlockingStub(channel)
                        .fetchPartition(FetchPartitionRequest.newBuilder().setPartitionId(location.getPartitionId())
                                .setSubpartitionFrom(from).setSubpartitionTo(to).build());
                while (chunks.hasNext()) {
                    frames.accept(chunks.next().getFrames().toByteArray());
                }
            });
        } catch (StatusRuntimeException e) {
            Status.Code code = e.getStatus().getCode();
            if (code == Status.Code.NOT_FOUND || code == Status.Code.UNAVAILABLE
                    || code == Status.Code.DEADLINE_EXCEEDED || code == Status.Code.CANCELLED) {
                // The connection was refused or lost: the failure report names the peer so that the
                // JobManager checks on it at once instead of waiting for its heartbeats to stop.
                throw new PartitionNotFoundException(location.getPartitionId(),
                        "TaskManager " + location.getTmId() + " at " + location.getTmAddress() + ": " + Rpc.message(e),
                        PeerUnreachableException.isConnectionLost(e) ? new PeerUnreachableException(location.getTmId(),
                                location.getTmAddress(), Rpc.message(e)) : e);
            }
            throw e;
        } finally {
            call.cancel(null);
        }
    }

    @Override
    public void close() {
        channels.values().forEach(Rpc::shutdown);
    }
}
