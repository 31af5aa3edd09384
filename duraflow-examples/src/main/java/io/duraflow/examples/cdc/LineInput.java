package io.duraflow.examples.cdc;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

/**
 * UTF-8 lines of a file from a byte offset, with the offset of the next line always known, so a
 * reader's position is a byte offset that a restored reader seeks to. A line ends at '\n' (one
 * '\r' before it is dropped) or at the end of the file.
 */
final class LineInput implements Closeable {
    private static final int BUFFER_BYTES = 64 << 10;

    private final FileChannel channel;
    private final ByteBuffer buffer = ByteBuffer.allocate(BUFFER_BYTES);
    /** File offset of buffer position 0. */
    private long bufferOffset;
    private byte[] line = new byte[256];

    LineInput(Path file, long offset) throws IOException {
        this.channel = FileChannel.open(file, StandardOpenOption.READ);
        this.bufferOffset = offset;
        buffer.limit(0);
    }

    /** Where the next line starts. */
    long offset() {
        return bufferOffset + buffer.position();
    }

    /** The next line, or null at the end of the file. */
    String readLine() throws IOException {
        int length = 0;
        while (true) {
            if (!buffer.hasRemaining() && !fill()) {
                return length == 0 ? null : decode(length);
            }
            byte b = buffer.get();
            if (b == '\n') {
                return decode(length);
            }
            if (length == line.length) {
                line = Arrays.copyOf(line, length * 2);
            }
            line[length++] = b;
        }
    }

    private String decode(int length) {
        int end = length > 0 && line[length - 1] == '\r' ? length - 1 : length;
        return new String(line, 0, end, StandardCharsets.UTF_8);
    }

    private boolean fill() throws IOException {
        bufferOffset += buffer.position();
        buffer.clear();
        int read = channel.read(buffer, bufferOffset);
        buffer.flip();
        return read > 0;
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
