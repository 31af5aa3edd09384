package io.duraflow.api.types;

import java.nio.charset.StandardCharsets;

/** Reads what a {@link DataWriter} wrote, from a byte array slice. Not thread-safe. */
public final class DataReader {
    private byte[] buffer;
    private int position;
    private int limit;

    public DataReader() {
        this(new byte[0], 0, 0);
    }

    public DataReader(byte[] buffer) {
        this(buffer, 0, buffer.length);
    }

    public DataReader(byte[] buffer, int offset, int length) {
        reset(buffer, offset, length);
    }

    public void reset(byte[] newBuffer, int offset, int length) {
        if (offset < 0 || length < 0 || offset + length > newBuffer.length) {
            throw new IndexOutOfBoundsException("slice " + offset + "+" + length + " of " + newBuffer.length);
        }
        this.buffer = newBuffer;
        this.position = offset;
        this.limit = offset + length;
    }

    public int position() {
        return position;
    }

    public int remaining() {
        return limit - position;
    }

    public boolean hasRemaining() {
        return position < limit;
    }

    public void skip(int bytes) {
        require(bytes);
        position += bytes;
    }

    private void require(int bytes) {
        if (bytes < 0 || position + bytes > limit) {
            throw new CorruptDataException("record data ends early: needed " + bytes + " bytes, "
                    + (limit - position) + " left");
        }
    }

    public byte readByte() {
        require(1);
        return buffer[position++];
    }

    public boolean readBoolean() {
        return readByte() != 0;
    }

    public int readInt() {
        require(4);
        int value = ((buffer[position] & 0xFF) << 24) | ((buffer[position + 1] & 0xFF) << 16)
                | ((buffer[position + 2] & 0xFF) << 8) | (buffer[position + 3] & 0xFF);
        position += 4;
        return value;
    }

    public long readLong() {
        require(8);
        long value = 0;
        for (int i = 0; i < 8; i++) {
            value = (value << 8) | (buffer[position + i] & 0xFFL);
        }
        position += 8;
        return value;
    }

    public double readDouble() {
        return Double.longBitsToDouble(readLong());
    }

    public int readVarInt() {
        // Locals instead of fields and one bounds check per byte: this runs for every record and field.
        byte[] bytes = buffer;
        int at = position;
        int result = 0;
        for (int shift = 0; shift < 35; shift += 7) {
            if (at >= limit) {
                position = at;
                require(1);
            }
            byte b = bytes[at++];
            result |= (b & 0x7F) << shift;
            if (b >= 0) {
                position = at;
                return result;
            }
        }
        position = at;
        throw new CorruptDataException("malformed var-int");
    }

    public long readVarLong() {
        byte[] bytes = buffer;
        int at = position;
        long result = 0;
        for (int shift = 0; shift < 70; shift += 7) {
            if (at >= limit) {
                position = at;
                require(1);
            }
            byte b = bytes[at++];
            result |= (long) (b & 0x7F) << shift;
            if (b >= 0) {
                position = at;
                return result;
            }
        }
        position = at;
        throw new CorruptDataException("malformed var-long");
    }

    public long readSignedVarLong() {
        long raw = readVarLong();
        return (raw >>> 1) ^ -(raw & 1);
    }

    public byte[] readBytes(int length) {
        require(length);
        byte[] out = new byte[length];
        System.arraycopy(buffer, position, out, 0, length);
        position += length;
        return out;
    }

    public String readString() {
        int length = readVarInt();
        require(length);
        String value = new String(buffer, position, length, StandardCharsets.UTF_8);
        position += length;
        return value;
    }
}
