package io.duraflow.exchange.pipelined;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The pipelined partitions of one TaskManager, by id: created by producer tasks, looked up by
 * local channels and by the network server for remote ones. A consumer may ask before its
 * producer created the partition (all tasks of a streaming job are deployed at once), so a lookup
 * returns a future. A partition leaves the registry when it is released. Thread-safe.
 */
public final class PipelinedPartitionRegistry {
    private final NetworkBufferPool networkPool;
    private final PipelinedPartitionSettings settings;
    private final LongSupplier nanoClock;
    private final Map<String, CompletableFuture<PipelinedResultPartition>> partitions = new ConcurrentHashMap<>();

    public PipelinedPartitionRegistry(NetworkBufferPool networkPool, PipelinedPartitionSettings settings,
            LongSupplier nanoClock) {
        this.networkPool = networkPool;
        this.settings = settings;
        this.nanoClock = nanoClock;
    }

    /**
     * Creates and registers the partition a producer task writes.
     *
     * @throws IllegalStateException if a partition with this id is registered already
     */
    public PipelinedResultPartition create(String partitionId, int subpartitions) {
        PipelinedResultPartition partition = new PipelinedResultPartition(partitionId, subpartitions, networkPool,
                settings, nanoClock, this::unregister);
        CompletableFuture<PipelinedResultPartition> slot =
                partitions.computeIfAbsent(partitionId, id -> new CompletableFuture<>());
        if (!slot.complete(partition)) {
            partition.abort();
            throw new IllegalStateException("pipelined partition " + partitionId + " exists already on this task manager;"
                    + " a partition id is produced by one task attempt only");
        }
        return partition;
    }

    /** The partition once its producer created it; never completes exceptionally (callers put their own timeout). */
    public CompletableFuture<PipelinedResultPartition> lookup(String partitionId) {
        return partitions.computeIfAbsent(partitionId, id -> new CompletableFuture<>());
    }

    /** A lookup gave up waiting: forget the empty slot unless the partition came meanwhile. */
    void forgetIfAbsent(String partitionId) {
        partitions.computeIfPresent(partitionId, (id, slot) -> slot.isDone() ? slot : null);
    }

    private void unregister(PipelinedResultPartition partition) {
        partitions.computeIfPresent(partition.partitionId(),
                (id, slot) -> slot.isDone() && slot.getNow(null) == partition ? null : slot);
    }

    public NetworkBufferPool networkPool() {
        return networkPool;
    }

    public int size() {
        return partitions.size();
    }
}
