package io.duraflow.exchange.pipelined;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One result partition's or input gate's share of a {@link NetworkBufferPool}: {@code reserved}
 * buffers that are always there, borrowing from the unreserved rest up to {@code max}, and an
 * {@code overdraft} beyond that for the record being processed when the share ran out.
 *
 * <p>Requests never block except {@link #requestBufferBlocking()}, which a writer uses only when
 * even the overdraft is used up. {@link #availability()} is what a task checks before it takes the
 * next record: done while a buffer within {@code max} can be had.
 *
 * <p>Thread-safe (a producer's task thread requests, consumers' threads recycle); state is guarded
 * by the lock of the {@link NetworkBufferPool}.
 */
public final class LocalBufferPool implements NetworkBuffer.Recycler {
    private static final CompletableFuture<Void> AVAILABLE = CompletableFuture.completedFuture(null);

    private final NetworkBufferPool global;
    private final String owner;
    private final int maxBuffers;
    private final int overdraftBuffers;
    /** Guarded by global. Set to 0 on destroy, so every buffer recycled afterwards returns to the unreserved rest. */
    private int reservedBuffers;
    /** Guarded by global. */
    private int inUse;
    /** Guarded by global; null while available or nobody asked. */
    private CompletableFuture<Void> availability;
    /** Guarded by global. */
    private boolean destroyed;

    LocalBufferPool(NetworkBufferPool global, String owner, int reservedBuffers, int maxBuffers, int overdraftBuffers) {
        this.global = global;
        this.owner = owner;
        this.reservedBuffers = reservedBuffers;
        this.maxBuffers = maxBuffers;
        this.overdraftBuffers = overdraftBuffers;
    }

    /** A buffer within the pool's maximum, or null when there is none now. */
    public NetworkBuffer requestBuffer() {
        byte[] memory = request(maxBuffers);
        return memory == null ? null : new NetworkBuffer(memory, 0, this);
    }

    /** A buffer within the maximum plus the overdraft, or null when there is none now. */
    public NetworkBuffer requestOverdraftBuffer() {
        byte[] memory = request(maxBuffers + overdraftBuffers);
        return memory == null ? null : new NetworkBuffer(memory, 0, this);
    }

    /**
     * Waits for a buffer within the maximum. The one place where a task thread blocks on the
     * network: when one record produced more output than the overdraft holds.
     *
     * @throws InterruptedException when the task is cancelled while waiting
     */
    public NetworkBuffer requestBufferBlocking() throws InterruptedException {
        while (true) {
            NetworkBuffer buffer = requestBuffer();
            if (buffer != null) {
                return buffer;
            }
            try {
                availability().get();
            } catch (java.util.concurrent.ExecutionException e) {
                throw new IllegalStateException("buffer pool of " + owner + " failed", e.getCause());
            }
        }
    }

    private byte[] request(int limit) {
        synchronized (global) {
            if (destroyed) {
                throw new IllegalStateException("the buffer pool of " + owner + " was released; its task has ended");
            }
            if (inUse >= limit) {
                return null;
            }
            if (inUse >= reservedBuffers && !global.takeUnreservedLocked()) {
                return null;
            }
            inUse++;
            return global.allocateLocked();
        }
    }

    /**
     * Done when {@link #requestBuffer()} would succeed. The future of an unavailable pool completes
     * when a buffer of this pool or an unreserved one is recycled (another pool may take that one
     * first; the caller then asks again).
     */
    public CompletableFuture<Void> availability() {
        synchronized (global) {
            if (destroyed || canRequestLocked()) {
                return AVAILABLE;
            }
            if (availability == null) {
                availability = new CompletableFuture<>();
            }
            if (inUse < maxBuffers) {
                // Below our maximum but the unreserved rest is empty: wait for another pool's recycle.
                global.waitForUnreservedLocked(this);
            }
            return availability;
        }
    }

    /** Cheap check for a task's loop: whether {@link #availability()} is done. */
    public boolean isAvailable() {
        synchronized (global) {
            return destroyed || canRequestLocked();
        }
    }

    private boolean canRequestLocked() {
        return inUse < maxBuffers && (inUse < reservedBuffers || global.hasUnreservedLocked());
    }

    @Override
    public void recycle(byte[] memory) {
        List<LocalBufferPool> toNotify;
        CompletableFuture<Void> own = null;
        synchronized (global) {
            global.freeLocked(memory);
            inUse--;
            if (inUse >= reservedBuffers) {
                toNotify = global.returnUnreservedLocked(1);
            } else {
                toNotify = List.of();
            }
            if (availability != null && canRequestLocked()) {
                own = availability;
                availability = null;
            }
        }
        if (own != null) {
            own.complete(null);
        }
        for (LocalBufferPool pool : toNotify) {
            pool.unreservedReturned();
        }
    }

    private void unreservedReturned() {
        CompletableFuture<Void> own = null;
        synchronized (global) {
            if (availability != null && canRequestLocked()) {
                own = availability;
                availability = null;
            } else if (availability != null && inUse < maxBuffers) {
                global.waitForUnreservedLocked(this); // another pool was faster: keep waiting
            }
        }
        if (own != null) {
            own.complete(null);
        }
    }

    /**
     * Gives the reservation back; buffers still out return to the unreserved rest when they are
     * recycled. Idempotent. Wakes anyone waiting for availability, and later requests throw.
     */
    public void destroy() {
        CompletableFuture<Void> own;
        List<LocalBufferPool> toNotify;
        synchronized (global) {
            if (destroyed) {
                return;
            }
            destroyed = true;
            int unusedReservation = reservedBuffers - Math.min(inUse, reservedBuffers);
            // Buffers in use that were reserved now count as borrowed: recycling them returns them to the rest.
            reservedBuffers = 0;
            toNotify = global.returnUnreservedLocked(unusedReservation);
            global.forgetLocked(this);
            own = availability;
            availability = null;
        }
        if (own != null) {
            own.complete(null);
        }
        toNotify.forEach(LocalBufferPool::unreservedReturned);
    }

    public String owner() {
        return owner;
    }

    public int bufferSize() {
        return global.bufferSize();
    }

    public int maxBuffers() {
        return maxBuffers;
    }

    public int overdraftBuffers() {
        return overdraftBuffers;
    }

    public int buffersInUse() {
        synchronized (global) {
            return inUse;
        }
    }

    public long bytesInUse() {
        return (long) buffersInUse() * global.bufferSize();
    }
}
