package io.duraflow.api.types;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A growable byte buffer that serializers write to. Not thread-safe. Multi-byte numbers are
 * big-endian; {@link #writeVarInt} and {@link #writeVarLong} use the protobuf base-128 encoding
 * (unsigned); strings are a var-int byte length followed by UTF-8 bytes.
 */
public final class DataWriter {
    private byte[] buffer;
    private int position;

    public DataWriter() {
        this(256);
    }

    public DataWriter(int initialCapacity) {
        this.buffer = new byte[Math.max(16, initialCapacity)];
    }

    public int position() {
        return position;
    }

    /** Forgets everything written so far; the buffer is kept for reuse. */
    public void reset() {
        position = 0;
    }

    public byte[] buffer() {
        return buffer;
    }

    public byte[] toByteArray() {
        return Arrays.copyOf(buffer, position);
    }

    private void ensure(int extra) {
        int needed = position + extra;
        if (needed > buffer.length) {
            int newLength = Math.max(needed, buffer.length * 2);
            if (newLength < 0) {
                throw new IllegalStateException("record buffer larger than 2 GiB");
            }
            buffer = Arrays.copyOf(buffer, newLength);
        }
    }

    public void writeByte(int value) {
        ensure(1);
        buffer[position++] = (byte) value;
    }

    public void writeBoolean(boolean value) {
        writeByte(value ? 1 : 0);
    }

    public void writeInt(int value) {
        ensure(4);
        buffer[position] = (byte) (value >>> 24);
        buffer[position + 1] = (byte) (value >>> 16);
        buffer[position + 2] = (byte) (value >>> 8);
        buffer[position + 3] = (byte) value;
        position += 4;
    }

    public void writeLong(long value) {
        ensure(8);
        for (int i = 7; i >= 0; i--) {
            buffer[position + 7 - i] = (byte) (value >>> (8 * i));
        }
        position += 8;
    }

    public void writeDouble(double value) {
        writeLong(Double.doubleToRawLongBits(value));
    }

    public void writeVarInt(int value) {
        ensure(5);
        while ((value & ~0x7F) != 0) {
            buffer[position++] = (byte) ((value & 0x7F) | 0x80);
            value >>>= 7;
        }
        buffer[position++] = (byte) value;
    }

    public void writeVarLong(long value) {
        ensure(10);
        byte[] bytes = buffer;
        int at = position;
        while ((value & ~0x7FL) != 0) {
            bytes[at++] = (byte) ((value & 0x7F) | 0x80);
            value >>>= 7;
        }
        bytes[at++] = (byte) value;
        position = at;
    }

    /** Zig-zag var-long: small negative numbers stay short. */
    public void writeSignedVarLong(long value) {
        writeVarLong((value << 1) ^ (value >> 63));
    }

    public void writeBytes(byte[] bytes) {
        writeBytes(bytes, 0, bytes.length);
    }

    public void writeBytes(byte[] bytes, int offset, int length) {
        ensure(length);
        System.arraycopy(bytes, offset, buffer, position, length);
        position += length;
    }

    public void writeString(String value) {
        int length = value.length();
        // Fast path: pure ASCII strings (the common case for keys) are copied char by char.
        if (length < 128) {
            ensure(1 + length);
            int start = position + 1;
            boolean ascii = true;
            for (int i = 0; i < length; i++) {
                char c = value.charAt(i);
                if (c >= 0x80) {
                    ascii = false;
                    break;
                }
                buffer[start + i] = (byte) c;
            }
            if (ascii) {
                buffer[position] = (byte) length;
                position = start + length;
                return;
            }
        }
        byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
        writeVarInt(utf8.length);
        writeBytes(utf8);
    }
}
