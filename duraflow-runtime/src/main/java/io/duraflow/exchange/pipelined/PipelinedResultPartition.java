package io.duraflow.exchange.pipelined;

import io.duraflow.exchange.PartitionSummary;
import io.duraflow.exchange.ResultPartitionWriter;
import java.io.IOException;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * A result partition whose records go to running consumers as they are produced, one {@link
 * PipelinedSubpartition} per consumer subtask, with bounded memory (share plus overdraft).
 * Everything except the readers' side ({@link #createView}) is for the producer's task thread only.
 * Backpressure and flushing: see docs/design/data-exchange.md#pipelinedresultpartition.
 */
public final class PipelinedResultPartition implements ResultPartitionWriter {
    private static final long NO_DEADLINE = Long.MAX_VALUE;

    private enum State {
        /** Records are written. */
        OPEN,
        /** End of partition queued in every subpartition; released once every reader consumed it. */
        FINISHED,
        /** Dropped: readers get a {@link ProducerFailedException}. */
        ABORTED
    }

    private final String partitionId;
    private final PipelinedSubpartition[] subpartitions;
    private final LocalBufferPool pool;
    private final long bufferTimeoutNanos;
    private final LongSupplier nanoClock;
    private final Consumer<PipelinedResultPartition> onReleased;
    /** The buffer being filled per subpartition, null when none. Task thread only. */
    private final NetworkBuffer[] building;
    private final long[] payloadBytes;
    private final long[] records;
    private long flushDeadlineNanos = NO_DEADLINE;
    /** Written by the task thread, read by readers' threads deciding about release. */
    private volatile State state = State.OPEN;
    /** Guarded by this (readers' threads report consumption). */
    private final boolean[] consumed;
    private int consumedCount;
    private boolean released;

    /**
     * @param nanoClock {@code System::nanoTime} in production, a manual clock in tests
     * @param onReleased called once when the partition's memory is given back (every reader
     *     consumed its end, or the partition was aborted): the registry forgets it
     */
    public PipelinedResultPartition(String partitionId, int subpartitionCount, NetworkBufferPool networkPool,
            PipelinedPartitionSettings settings, LongSupplier nanoClock,
            Consumer<PipelinedResultPartition> onReleased) {
        this.partitionId = Objects.requireNonNull(partitionId, "partitionId");
        if (subpartitionCount < 1) {
            throw new IllegalArgumentException("a partition needs at least one subpartition, got " + subpartitionCount);
        }
        this.subpartitions = new PipelinedSubpartition[subpartitionCount];
        for (int i = 0; i < subpartitionCount; i++) {
            subpartitions[i] = new PipelinedSubpartition(this, i);
        }
        int share = Math.multiplyExact(settings.buffersPerSubpartition(), subpartitionCount);
        // One buffer per subpartition is guaranteed, so every consumer can always get data; the rest is borrowed.
        this.pool = networkPool.createLocalPool("result partition " + partitionId, subpartitionCount, share,
                settings.overdraftBuffers());
        this.bufferTimeoutNanos = settings.bufferTimeout().toNanos();
        this.nanoClock = nanoClock;
        this.onReleased = onReleased;
        this.building = new NetworkBuffer[subpartitionCount];
        this.payloadBytes = new long[subpartitionCount];
        this.records = new long[subpartitionCount];
        this.consumed = new boolean[subpartitionCount];
    }

    public String partitionId() {
        return partitionId;
    }

    @Override
    public int subpartitionCount() {
        return subpartitions.length;
    }

    @Override
    public void write(int subpartition, byte[] record, int offset, int length) throws IOException {
        checkOpen();
        int needed = varintSize(length) + length;
        NetworkBuffer buffer = building[subpartition];
        if (buffer != null && buffer.remaining() < needed) {
            flush(subpartition);
            buffer = null;
        }
        if (buffer == null) {
            buffer = needed > pool.bufferSize() ? new NetworkBuffer(new byte[needed], 0, NetworkBuffer.Recycler.UNPOOLED)
                    : requestBuffer();
            building[subpartition] = buffer;
            if (flushDeadlineNanos == NO_DEADLINE) {
                flushDeadlineNanos = nanoClock.getAsLong() + bufferTimeoutNanos;
            }
        }
        byte[] memory = buffer.memory();
        int position = buffer.size();
        int value = length;
        while ((value & ~0x7F) != 0) {
            memory[position++] = (byte) ((value & 0x7F) | 0x80);
            value >>>= 7;
        }
        memory[position++] = (byte) value;
        System.arraycopy(record, offset, memory, position, length);
        buffer.setSize(position + length);
        payloadBytes[subpartition] += needed;
        records[subpartition]++;
        if (buffer.remaining() == 0 || bufferTimeoutNanos == 0) {
            flush(subpartition);
        }
    }

    private NetworkBuffer requestBuffer() throws IOException {
        NetworkBuffer buffer = pool.requestBuffer();
        if (buffer == null) {
            buffer = pool.requestOverdraftBuffer();
        }
        if (buffer == null) {
            try {
                buffer = pool.requestBufferBlocking();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new java.io.InterruptedIOException("interrupted while waiting for a network buffer of partition "
                        + partitionId + " (the task is being cancelled)");
            }
        }
        return buffer;
    }

    /** Queues every event as an element of its own in every subpartition, after the records written before it. */
    public void broadcastEvent(NetworkEvent event) {
        checkOpen();
        if (event instanceof NetworkEvent.EndOfPartition) {
            throw new IllegalArgumentException("the end of a partition is queued by finish(), not as an event");
        }
        for (int i = 0; i < subpartitions.length; i++) {
            flush(i);
            subpartitions[i].add(event);
        }
    }

    /** Sends the partly filled buffer of one subpartition. */
    public void flush(int subpartition) {
        NetworkBuffer buffer = building[subpartition];
        if (buffer != null) {
            building[subpartition] = null;
            subpartitions[subpartition].add(buffer);
        }
    }

    /** Sends every partly filled buffer; the buffer timeout starts again with the next record. */
    public void flushAll() {
        for (int i = 0; i < building.length; i++) {
            flush(i);
        }
        flushDeadlineNanos = NO_DEADLINE;
    }

    /** Flushes when the buffer timeout of the oldest unsent record passed; returns whether it did. */
    public boolean flushIfDue() {
        if (flushDeadlineNanos == NO_DEADLINE || nanoClock.getAsLong() < flushDeadlineNanos) {
            return false;
        }
        flushAll();
        return true;
    }

    /** How long the task may wait before it must call {@link #flushIfDue()}; {@code Long.MAX_VALUE} when nothing waits. */
    public long nanosUntilFlush() {
        return flushDeadlineNanos == NO_DEADLINE ? Long.MAX_VALUE
                : Math.max(0, flushDeadlineNanos - nanoClock.getAsLong());
    }

    /** Done while the next record can be written without overdraft; see the class comment. */
    public CompletableFuture<Void> availability() {
        return pool.availability();
    }

    public boolean isAvailable() {
        return pool.isAvailable();
    }

    /** The reading end of a subpartition; {@code dataAvailable} may be called from any thread. */
    public SubpartitionView createView(int subpartition, Runnable dataAvailable) {
        return subpartitions[subpartition].createView(dataAvailable);
    }

    /** Buffers of this partition not recycled yet (queued, in flight, or being filled). */
    public int buffersInUse() {
        return pool.buffersInUse();
    }

    LocalBufferPool pool() {
        return pool;
    }

    /** Queues the end of the partition after everything written; the partition is released once every reader read it. */
    @Override
    public PartitionSummary finish() {
        checkOpen();
        flushAll();
        state = State.FINISHED;
        for (PipelinedSubpartition subpartition : subpartitions) {
            subpartition.add(NetworkEvent.EndOfPartition.INSTANCE);
        }
        boolean allConsumed;
        synchronized (this) {
            allConsumed = consumedCount == subpartitions.length;
        }
        if (allConsumed) {
            release(); // every reader left before the end; nobody will read it
        }
        long total = 0;
        for (long bytes : payloadBytes) {
            total += bytes;
        }
        return new PartitionSummary(payloadBytes, records, total);
    }

    @Override
    public void abort() {
        if (state == State.ABORTED) {
            return;
        }
        boolean wasFinished = state == State.FINISHED;
        state = State.ABORTED;
        for (int i = 0; i < building.length; i++) {
            if (building[i] != null) {
                building[i].recycle();
                building[i] = null;
            }
        }
        if (!wasFinished) {
            for (PipelinedSubpartition subpartition : subpartitions) {
                subpartition.fail("the producer of partition " + partitionId + " failed or was cancelled");
            }
        }
        release();
    }

    @Override
    public void close() {
        if (state == State.OPEN) {
            abort();
        }
    }

    void subpartitionConsumed(int index) {
        boolean all;
        synchronized (this) {
            if (consumed[index]) {
                return;
            }
            consumed[index] = true;
            all = ++consumedCount == subpartitions.length;
        }
        // Readers that go away while the producer still writes do not free its memory under it.
        if (all && state != State.OPEN) {
            release();
        }
    }

    private void release() {
        synchronized (this) {
            if (released) {
                return;
            }
            released = true;
        }
        pool.destroy();
        onReleased.accept(this);
    }

    private void checkOpen() {
        if (state != State.OPEN) {
            throw new IllegalStateException("partition " + partitionId + " is " + state + "; nothing can be written to it");
        }
    }

    static int varintSize(int value) {
        return value < 0 ? 5 : (31 - Integer.numberOfLeadingZeros(value | 1)) / 7 + 1;
    }

    @Override
    public String toString() {
        return "PipelinedResultPartition[" + partitionId + ", " + subpartitions.length + " subpartitions]";
    }
}
