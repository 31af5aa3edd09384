package io.duraflow.exchange.pipelined;

import io.duraflow.config.Configuration;
import io.duraflow.config.NetworkOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.LongSupplier;

/**
 * Everything pipelined exchanges need on one TaskManager, in one object for the TaskExecutor to
 * own: the network memory, the registry of its pipelined partitions, the stream service to add to
 * its gRPC server, and its connections to peers. Producer tasks call {@link #createPartition};
 * consumer tasks call {@link #createInputGate}, which makes a local channel for a partition of
 * this TaskManager and a remote one otherwise, and reserves the remote channels' receive buffers.
 * Thread-safe.
 */
public final class NetworkEnvironment implements AutoCloseable {
    /** Where one input channel reads from: a producer's partition and the subpartition of this consumer. */
    public record ChannelLocation(int input, String producerTaskManagerId, String producerAddress, String partitionId,
            int subpartition) {
        public ChannelLocation {
            Objects.requireNonNull(producerTaskManagerId, "producerTaskManagerId");
            Objects.requireNonNull(partitionId, "partitionId");
        }
    }

    private final String taskManagerId;
    private final NetworkBufferPool networkPool;
    private final PipelinedPartitionRegistry registry;
    private final int buffersPerChannel;
    private final Duration partitionRequestTimeout;
    private final ExecutorService sendExecutor;
    private final PartitionStreamService service;
    private final PartitionStreamConnections connections = new PartitionStreamConnections();

    public NetworkEnvironment(Configuration configuration, String taskManagerId, LongSupplier nanoClock) {
        this.taskManagerId = taskManagerId;
        this.networkPool = NetworkBufferPool.fromConfiguration(configuration);
        this.registry = new PipelinedPartitionRegistry(networkPool,
                PipelinedPartitionSettings.fromConfiguration(configuration), nanoClock);
        this.buffersPerChannel = configuration.get(NetworkOptions.BUFFERS_PER_CHANNEL);
        this.partitionRequestTimeout = configuration.get(NetworkOptions.PARTITION_REQUEST_TIMEOUT);
        // Two senders serve every outgoing stream: each run sends what credit allows and returns.
        this.sendExecutor = Executors.newFixedThreadPool(2, runnable -> {
            Thread thread = new Thread(runnable, "partition-stream-sender-" + taskManagerId);
            thread.setDaemon(true);
            return thread;
        });
        this.service = new PartitionStreamService(taskManagerId, registry, partitionRequestTimeout, sendExecutor);
    }

    /** The PartitionStreams service: add it to the TaskManager's gRPC server. */
    public PartitionStreamService service() {
        return service;
    }

    /** The partition a producer task writes; it leaves the registry once consumed or aborted. */
    public PipelinedResultPartition createPartition(String partitionId, int subpartitions) {
        return registry.create(partitionId, subpartitions);
    }

    /**
     * The gate of a consumer task over {@code channels}, not started yet. Closing the gate gives
     * its receive buffers back.
     *
     * @param consumer names the consuming task in the producers' logs and in errors
     * @throws NetworkBufferPool.InsufficientNetworkMemoryException if the receive buffers do not fit
     */
    public PipelinedInputGate createInputGate(String consumer, List<ChannelLocation> channels) {
        long remote = channels.stream().filter(c -> !c.producerTaskManagerId().equals(taskManagerId)).count();
        LocalBufferPool receivePool = null;
        if (remote > 0) {
            int buffers = Math.toIntExact(remote * buffersPerChannel);
            receivePool = networkPool.createLocalPool("input gate of " + consumer, buffers, buffers, 0);
        }
        List<PipelinedInputGate.Channel> gateChannels = new ArrayList<>();
        for (ChannelLocation location : channels) {
            PipelinedInputChannel channel = location.producerTaskManagerId().equals(taskManagerId)
                    ? new LocalInputChannel(registry.lookup(location.partitionId()), location.partitionId(),
                            location.subpartition(), partitionRequestTimeout)
                    : new RemoteInputChannel(connections.connection(location.producerAddress()),
                            location.producerTaskManagerId(), location.producerAddress(), location.partitionId(),
                            location.subpartition(), receivePool, buffersPerChannel, consumer);
            gateChannels.add(new PipelinedInputGate.Channel(location.input(), channel));
        }
        return new PipelinedInputGate(gateChannels, receivePool);
    }

    /** Bytes of network buffers in use on this TaskManager: what status and benchmarks show. */
    public long bytesInUse() {
        return networkPool.bytesInUse();
    }

    public long totalBytes() {
        return networkPool.totalBytes();
    }

    @Override
    public void close() {
        connections.close();
        sendExecutor.shutdownNow();
    }
}
