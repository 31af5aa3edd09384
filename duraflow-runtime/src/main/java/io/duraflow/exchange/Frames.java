package io.duraflow.exchange;

import io.duraflow.api.types.DataWriter;
import java.util.Objects;
import java.util.zip.CRC32C;

/**
 * Block frames, the unit in which a result partition is stored on disk and shipped over the
 * network, and helpers to encode and decode them on plain byte arrays. Layout: see
 * docs/design/data-exchange.md#frames.
 */
public final class Frames {
    /** Bytes before the payload: subpartition, payload length, checksum. */
    public static final int HEADER_BYTES = 12;
    /** Largest payload a writer produces, unless one record alone is larger. */
    public static final int MAX_PAYLOAD_BYTES = 1 << 20;

    private Frames() {
    }

    /** Appends one frame whose payload is {@code payload[offset, offset + length)}. */
    public static void write(DataWriter out, int subpartition, byte[] payload, int offset, int length) {
        Objects.checkFromIndexSize(offset, length, payload.length);
        out.writeInt(subpartition);
        out.writeInt(length);
        out.writeInt(crc32c(payload, offset, length));
        out.writeBytes(payload, offset, length);
    }

    /** Returns a single frame as a new array. */
    public static byte[] encode(int subpartition, byte[] payload, int offset, int length) {
        DataWriter out = new DataWriter(HEADER_BYTES + length);
        write(out, subpartition, payload, offset, length);
        return out.buffer().length == out.position() ? out.buffer() : out.toByteArray();
    }

    /**
     * Iterates the frames in {@code chunk}, which must hold whole frames back to back.
     *
     * @param source names where the bytes came from (a file, a peer and partition); it is
     *     quoted in error messages
     */
    public static FrameIterator iterate(byte[] chunk, String source) {
        return iterate(chunk, 0, chunk.length, source);
    }

    /** Iterates the frames in {@code chunk[offset, offset + length)}; see {@link #iterate(byte[], String)}. */
    public static FrameIterator iterate(byte[] chunk, int offset, int length, String source) {
        Objects.checkFromIndexSize(offset, length, chunk.length);
        return new FrameIterator(chunk, offset, offset + length, source);
    }

    /** Iterates the records of one payload, {@code buffer[offset, offset + length)}. */
    public static RecordIterator records(byte[] buffer, int offset, int length, String source) {
        RecordIterator records = new RecordIterator(source);
        records.reset(buffer, offset, length);
        return records;
    }

    public static int crc32c(byte[] bytes, int offset, int length) {
        CRC32C crc = new CRC32C();
        crc.update(bytes, offset, length);
        return (int) crc.getValue();
    }
}
