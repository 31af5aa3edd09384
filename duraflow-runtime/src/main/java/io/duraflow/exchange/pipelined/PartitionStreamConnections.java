package io.duraflow.exchange.pipelined;

import io.duraflow.rpc.Rpc;
import io.grpc.ManagedChannel;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The gRPC connections of one TaskManager to its peers for pipelined exchanges: one per peer
 * address, shared by every remote channel to it (gRPC multiplexes the streams). Thread-safe.
 */
public final class PartitionStreamConnections implements AutoCloseable {
    private final Map<String, ManagedChannel> connections = new ConcurrentHashMap<>();

    /** The connection to {@code host:port}, opened on first use. */
    public ManagedChannel connection(String address) {
        return connections.computeIfAbsent(address, Rpc::channel);
    }

    @Override
    public void close() {
        connections.values().forEach(Rpc::shutdown);
        connections.clear();
    }
}
