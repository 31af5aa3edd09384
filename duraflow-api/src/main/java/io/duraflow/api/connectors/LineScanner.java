package io.duraflow.api.connectors;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Cuts a file into UTF-8 lines through a reusable buffer, with positional reads on a channel.
 *
 * <p>A line ends at a '\n' or at the end of the file; one '\r' right before the '\n' is dropped
 * (so "\n" and "\r\n" both end lines), any other '\r' is part of the line. A '\n' as the last
 * byte of the file ends the last line and does not start another. Malformed UTF-8 is replaced
 * by U+FFFD.
 */
final class LineScanner {
    private final FileChannel channel;
    private final byte[] bytes;
    private final ByteBuffer buffer;
    /** File offset of bytes[0]; the next unread byte is at fileOffset + position. */
    private long fileOffset;
    private int position;
    private int limit;
    /** Bytes of a line that spans buffer refills. */
    private byte[] pending = new byte[256];
    private int pendingLength;

    LineScanner(FileChannel channel, byte[] buffer) {
        this.channel = channel;
        this.bytes = buffer;
        this.buffer = ByteBuffer.wrap(buffer);
    }

    /** The file offset of the next byte to read. */
    long offset() {
        return fileOffset + position;
    }

    void seek(long offset) {
        fileOffset = offset;
        position = 0;
        limit = 0;
    }

    /** Makes at least one unread byte available; false at the end of the file. */
    private boolean fill() throws IOException {
        if (position < limit) {
            return true;
        }
        fileOffset += limit;
        position = 0;
        limit = 0;
        buffer.clear();
        while (limit == 0) {
            if (channel.read(buffer, fileOffset) < 0) {
                return false;
            }
            limit = buffer.position();
        }
        return true;
    }

    private int indexOfNewline(int from) {
        for (int i = from; i < limit; i++) {
            if (bytes[i] == '\n') {
                return i;
            }
        }
        return -1;
    }

    /** Moves past the next '\n'; false if the file ends first. */
    boolean skipPastNewline() throws IOException {
        while (fill()) {
            int newline = indexOfNewline(position);
            if (newline >= 0) {
                position = newline + 1;
                return true;
            }
            position = limit;
        }
        return false;
    }

    /** The line starting at {@link #offset()}, or null at the end of the file. */
    String readLine() throws IOException {
        if (!fill()) {
            return null;
        }
        pendingLength = 0;
        while (true) {
            int start = position;
            int newline = indexOfNewline(start);
            if (newline >= 0) {
                position = newline + 1;
                if (pendingLength == 0) {
                    int end = newline > start && bytes[newline - 1] == '\r' ? newline - 1 : newline;
                    return new String(bytes, start, end - start, StandardCharsets.UTF_8);
                }
                append(start, newline - start);
                int end = pending[pendingLength - 1] == '\r' ? pendingLength - 1 : pendingLength;
                return new String(pending, 0, end, StandardCharsets.UTF_8);
            }
            // fill() guarantees start < limit, so a line that continues has pendingLength > 0.
            append(start, limit - start);
            position = limit;
            if (!fill()) {
                return new String(pending, 0, pendingLength, StandardCharsets.UTF_8);
            }
        }
    }

    private void append(int from, int length) {
        if (pendingLength + length > pending.length) {
            long wanted = Math.max((long) pending.length * 2, (long) pendingLength + length);
            if (wanted > Integer.MAX_VALUE - 8) {
                throw new IllegalStateException("line longer than 2 GiB");
            }
            pending = Arrays.copyOf(pending, (int) wanted);
        }
        System.arraycopy(bytes, from, pending, pendingLength, length);
        pendingLength += length;
    }
}
