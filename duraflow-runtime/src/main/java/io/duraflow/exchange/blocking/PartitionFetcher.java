package io.duraflow.exchange.blocking;

import io.duraflow.rpc.proto.PartitionLocation;
import java.util.function.Consumer;

/** How a batch task reads a producer's blocking partition: from local files or a peer's stream. */
public interface PartitionFetcher {
    /**
     * Streams the whole frames of a subpartition range of a producer's partition to the consumer.
     *
     * @throws io.duraflow.exchange.PartitionNotFoundException when the partition or its
     *     TaskManager is gone
     */
    void fetch(PartitionLocation location, int fromSubpartition, int toSubpartition, Consumer<byte[]> frames)
            throws Exception;
}
