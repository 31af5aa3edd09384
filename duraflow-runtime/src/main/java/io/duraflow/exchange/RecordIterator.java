package io.duraflow.exchange;

import io.duraflow.api.types.DataReader;
import io.duraflow.api.types.TypeSerializer;
import java.util.NoSuchElementException;

/**
 * Iterates the length-prefixed records of one frame payload without copying: each record is
 * exposed as a {@link DataReader} slice of the payload array. Not thread-safe.
 */
public final class RecordIterator {
    private final String source;
    private final DataReader cursor = new DataReader();
    private final DataReader record = new DataReader();
    private byte[] buffer = new byte[0];

    RecordIterator(String source) {
        this.source = source;
    }

    void reset(byte[] newBuffer, int offset, int length) {
        buffer = newBuffer;
        cursor.reset(newBuffer, offset, length);
    }

    public boolean hasNext() {
        return cursor.hasRemaining();
    }

    /**
     * Returns the next record as a slice of the payload. The returned reader is reused: it is
     * valid until the next call.
     */
    public DataReader next() {
        if (!cursor.hasRemaining()) {
            throw new NoSuchElementException("no more records in this payload");
        }
        int recordStart = cursor.position();
        int length;
        try {
            length = cursor.readVarInt();
        } catch (RuntimeException e) {
            throw new CorruptFrameException(source, recordStart, "record length prefix cut off or malformed", e);
        }
        if (length < 0 || length > cursor.remaining()) {
            throw new CorruptFrameException(source, recordStart, "record length " + length
                    + " exceeds the " + cursor.remaining() + " payload bytes left");
        }
        record.reset(buffer, cursor.position(), length);
        cursor.skip(length);
        return record;
    }

    /**
     * Deserializes the next record.
     *
     * @throws CorruptFrameException if the serializer reads past the record or leaves bytes unread,
     *     which means the writer used a different serializer
     */
    public <T> T next(TypeSerializer<T> serializer) {
        int recordStart = cursor.position();
        DataReader in = next();
        T value;
        try {
            value = serializer.read(in);
        } catch (RuntimeException e) {
            throw new CorruptFrameException(source, recordStart, "record does not deserialize as "
                    + serializer.description() + ": " + e.getMessage(), e);
        }
        if (in.hasRemaining()) {
            throw new CorruptFrameException(source, recordStart, serializer.description() + " left "
                    + in.remaining() + " bytes of the record unread");
        }
        return value;
    }
}
