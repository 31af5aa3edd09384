package io.duraflow.exchange;


/**
 * Walks the frames of a byte array, verifying each frame's bounds and checksum before exposing
 * it. Allocation-free: the accessors describe the current frame in place, and {@link #records()}
 * reuses one {@link RecordIterator}. Not thread-safe.
 *
 * <pre>{@code
 * FrameIterator frames = Frames.iterate(chunk, "partition 3 from tm-2");
 * while (frames.next()) {
 *     RecordIterator records = frames.records();
 *     while (records.hasNext()) {
 *         consume(records.next(serializer));
 *     }
 * }
 * }</pre>
 */
public final class FrameIterator {
    private final byte[] buffer;
    private final int end;
    private final String source;
    private final RecordIterator records;
    private int nextFrame;
    private int frameOffset = -1;
    private int subpartition;
    private int payloadLength;

    FrameIterator(byte[] buffer, int offset, int end, String source) {
        this.buffer = buffer;
        this.nextFrame = offset;
        this.end = end;
        this.source = source;
        this.records = new RecordIterator(source);
    }

    /**
     * Moves to the next frame and verifies it.
     *
     * @return false when the bytes are used up
     * @throws CorruptFrameException if the frame is cut off or its checksum does not match
     */
    public boolean next() {
        if (nextFrame == end) {
            frameOffset = -1;
            return false;
        }
        int at = nextFrame;
        if (end - at < Frames.HEADER_BYTES) {
            throw new CorruptFrameException(source, at, "frame header cut off (" + (end - at) + " bytes left)");
        }
        int length = PartitionFormat.readInt(buffer, at + 4);
        if (length < 0 || length > end - at - Frames.HEADER_BYTES) {
            throw new CorruptFrameException(source, at, "payload length " + length + " exceeds the "
                    + (end - at - Frames.HEADER_BYTES) + " bytes left");
        }
        int expectedCrc = PartitionFormat.readInt(buffer, at + 8);
        if (Frames.crc32c(buffer, at + Frames.HEADER_BYTES, length) != expectedCrc) {
            throw new CorruptFrameException(source, at, "checksum mismatch");
        }
        frameOffset = at;
        subpartition = PartitionFormat.readInt(buffer, at);
        payloadLength = length;
        nextFrame = at + Frames.HEADER_BYTES + length;
        return true;
    }

    /** Offset of the current frame's header in the array. */
    public int frameOffset() {
        requireFrame();
        return frameOffset;
    }

    public int subpartition() {
        requireFrame();
        return subpartition;
    }

    /** Offset of the current payload in {@link #buffer()}. */
    public int payloadOffset() {
        requireFrame();
        return frameOffset + Frames.HEADER_BYTES;
    }

    public int payloadLength() {
        requireFrame();
        return payloadLength;
    }

    /** The array being iterated (not a copy). */
    public byte[] buffer() {
        return buffer;
    }

    /** The records of the current frame; the same iterator object is reset on every call. */
    public RecordIterator records() {
        requireFrame();
        records.reset(buffer, payloadOffset(), payloadLength);
        return records;
    }

    private void requireFrame() {
        if (frameOffset < 0) {
            throw new IllegalStateException("no current frame: call next() first and check that it returned true");
        }
    }
}
