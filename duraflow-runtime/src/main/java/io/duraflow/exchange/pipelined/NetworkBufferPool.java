package io.duraflow.exchange.pipelined;

import io.duraflow.config.Configuration;
import io.duraflow.config.NetworkOptions;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The network memory of one TaskManager ({@code taskmanager.network.memory}), cut into buffers of
 * {@code taskmanager.network.buffer-size}, shared by the result partitions and input gates of its
 * tasks through {@link LocalBufferPool}s.
 *
 * <p>Sharing rules, so that one task cannot starve the others:
 * <ol>
 *   <li>A local pool <em>reserves</em> its guaranteed buffers when it is created; creation fails
 *       with an error that names the option to raise if the reservation does not fit. Reserved
 *       buffers are always available to their pool.</li>
 *   <li>Beyond its reservation a pool <em>borrows</em> from the unreserved rest, up to its own
 *       maximum; a borrowed buffer goes back to the unreserved rest when it is recycled.</li>
 *   <li>Memory is allocated lazily and reused, so a TaskManager without streaming tasks holds none.</li>
 * </ol>
 *
 * <p>Thread-safe: one lock (this object) guards the counts of the pool and of all its local pools;
 * it is taken once per buffer (32 KiB by default), never per record. Futures are completed outside
 * the lock.
 */
public final class NetworkBufferPool {
    private final int bufferSize;
    private final int totalBuffers;
    /** Buffers neither reserved by a local pool nor borrowed by one. Guarded by this. */
    private int unreservedFree;
    /** Buffers handed out to local pools and not recycled yet. Guarded by this. */
    private int buffersInUse;
    /** Recycled memory, reused before new memory is allocated. Guarded by this. */
    private final ArrayDeque<byte[]> freeMemory = new ArrayDeque<>();
    /** Local pools whose availability waits for an unreserved buffer. Guarded by this. */
    private final Set<LocalBufferPool> waitingForUnreserved = new LinkedHashSet<>();

    public NetworkBufferPool(long totalBytes, int bufferSize) {
        if (bufferSize <= 0) {
            throw new IllegalArgumentException("buffer size must be positive, got " + bufferSize);
        }
        long buffers = totalBytes / bufferSize;
        if (buffers < 1 || buffers > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("network memory of " + totalBytes + " bytes holds " + buffers
                    + " buffers of " + bufferSize + " bytes; set taskmanager.network.memory to at least one buffer");
        }
        this.bufferSize = bufferSize;
        this.totalBuffers = (int) buffers;
        this.unreservedFree = totalBuffers;
    }

    public static NetworkBufferPool fromConfiguration(Configuration configuration) {
        return new NetworkBufferPool(configuration.get(NetworkOptions.NETWORK_MEMORY).bytes(),
                (int) configuration.get(NetworkOptions.BUFFER_SIZE).bytes());
    }

    /**
     * A share of the network memory for one result partition or input gate.
     *
     * @param owner names the partition or gate in errors
     * @param reservedBuffers buffers guaranteed to the pool, taken now
     * @param maxBuffers buffers the pool may hold while it reports itself available ({@code >= reservedBuffers})
     * @param overdraftBuffers buffers it may take beyond {@code maxBuffers} when asked explicitly
     * @throws InsufficientNetworkMemoryException if the reservation does not fit
     */
    public LocalBufferPool createLocalPool(String owner, int reservedBuffers, int maxBuffers, int overdraftBuffers) {
        if (reservedBuffers < 0 || maxBuffers < reservedBuffers || maxBuffers < 1 || overdraftBuffers < 0) {
            throw new IllegalArgumentException("local pool of " + owner + ": need 0 <= reserved <= max, max >= 1,"
                    + " overdraft >= 0; got reserved " + reservedBuffers + ", max " + maxBuffers
                    + ", overdraft " + overdraftBuffers);
        }
        synchronized (this) {
            if (reservedBuffers > unreservedFree) {
                throw new InsufficientNetworkMemoryException(owner + " needs " + reservedBuffers + " network buffers of "
                        + bufferSize + " bytes but only " + unreservedFree + " of " + totalBuffers
                        + " are free; raise taskmanager.network.memory or run fewer tasks per task manager");
            }
            unreservedFree -= reservedBuffers;
        }
        return new LocalBufferPool(this, owner, reservedBuffers, maxBuffers, overdraftBuffers);
    }

    public int bufferSize() {
        return bufferSize;
    }

    public int totalBuffers() {
        return totalBuffers;
    }

    public long totalBytes() {
        return (long) totalBuffers * bufferSize;
    }

    /** Bytes of buffers handed out and not recycled yet: what the status and the benchmark show. */
    public synchronized long bytesInUse() {
        return (long) buffersInUse * bufferSize;
    }

    public synchronized int buffersInUse() {
        return buffersInUse;
    }

    /** Buffers that a new local pool could still reserve. */
    public synchronized int unreservedFreeBuffers() {
        return unreservedFree;
    }

    // ---------------------------------------------------------------- called by LocalBufferPool under this lock

    /** Takes one unreserved buffer; false when none is left (the caller then waits for availability). */
    boolean takeUnreservedLocked() {
        if (unreservedFree == 0) {
            return false;
        }
        unreservedFree--;
        return true;
    }

    boolean hasUnreservedLocked() {
        return unreservedFree > 0;
    }

    /** Gives back {@code count} unreserved buffers and returns the pools waiting for them, to notify outside the lock. */
    List<LocalBufferPool> returnUnreservedLocked(int count) {
        unreservedFree += count;
        if (waitingForUnreserved.isEmpty()) {
            return List.of();
        }
        List<LocalBufferPool> waiting = new ArrayList<>(waitingForUnreserved);
        waitingForUnreserved.clear();
        return waiting;
    }

    void waitForUnreservedLocked(LocalBufferPool pool) {
        waitingForUnreserved.add(pool);
    }

    void forgetLocked(LocalBufferPool pool) {
        waitingForUnreserved.remove(pool);
    }

    byte[] allocateLocked() {
        buffersInUse++;
        byte[] memory = freeMemory.poll();
        return memory != null ? memory : new byte[bufferSize];
    }

    void freeLocked(byte[] memory) {
        if (memory.length != bufferSize) {
            throw new IllegalArgumentException("recycled memory of " + memory.length + " bytes into a pool of "
                    + bufferSize + "-byte buffers");
        }
        buffersInUse--;
        freeMemory.push(memory);
    }

    /** A local pool's reservation does not fit into what is left of the network memory. */
    public static final class InsufficientNetworkMemoryException extends IllegalStateException {
        public InsufficientNetworkMemoryException(String message) {
            super(message);
        }
    }
}
