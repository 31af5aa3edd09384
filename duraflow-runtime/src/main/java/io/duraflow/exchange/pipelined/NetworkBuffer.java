package io.duraflow.exchange.pipelined;

import java.util.Objects;

/**
 * A buffer of whole records, each {@code varint length | record bytes} as in a frame payload of
 * {@link io.duraflow.exchange.Frames}, so {@code Frames.records(memory(), 0, size(), source)}
 * decodes it. Its memory belongs to a pool; whoever holds the buffer last calls {@link
 * #recycle()} exactly once (the consumer after decoding, the network sender after sending).
 *
 * <p>Filled by one thread and then handed on through a queue that publishes it safely; a buffer
 * is never touched by two threads at the same time.
 */
public final class NetworkBuffer implements BufferOrEvent {
    /** Where the memory of a buffer goes when it is no longer needed. */
    @FunctionalInterface
    public interface Recycler {
        void recycle(byte[] memory);

        /** For buffers outside any pool (records larger than a buffer): the garbage collector frees them. */
        Recycler UNPOOLED = memory -> { };
    }

    private final byte[] memory;
    private final Recycler recycler;
    private int size;
    private boolean recycled;

    public NetworkBuffer(byte[] memory, int size, Recycler recycler) {
        this.memory = Objects.requireNonNull(memory, "memory");
        this.recycler = Objects.requireNonNull(recycler, "recycler");
        Objects.checkFromIndexSize(0, size, memory.length);
        this.size = size;
    }

    public byte[] memory() {
        return memory;
    }

    /** Bytes of records in the buffer, from offset 0. */
    public int size() {
        return size;
    }

    public int capacity() {
        return memory.length;
    }

    int remaining() {
        return memory.length - size;
    }

    void setSize(int size) {
        Objects.checkFromIndexSize(0, size, memory.length);
        this.size = size;
    }

    /** Gives the memory back; a second call is a bug and throws, because the memory may already be reused. */
    public void recycle() {
        if (recycled) {
            throw new IllegalStateException("network buffer recycled twice; its memory may already hold other records");
        }
        recycled = true;
        recycler.recycle(memory);
    }

    boolean isRecycled() {
        return recycled;
    }

    @Override
    public String toString() {
        return "NetworkBuffer[size=" + size + ", capacity=" + memory.length + "]";
    }
}
