package io.duraflow.spill;

import io.duraflow.api.types.DataWriter;
import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.CRC32C;

/**
 * Writes one sorted spill run of {@link SpillingAggregator}, or one partition file of {@link
 * SpillingHashJoin}. Not fsynced: runs live only as long as their owner. Layout: see
 * docs/design/spilling.md#runwriter.
 */
final class RunWriter implements Closeable {
    static final byte[] MAGIC = {'D', 'F', 'S', 'R'};
    static final int VERSION = 1;
    static final int HEADER_BYTES = 8;
    static final int BLOCK_HEADER_BYTES = 12;
    static final int BLOCK_TARGET_BYTES = 32 * 1024;
    private static final int STREAM_BUFFER_BYTES = 64 * 1024;

    private final OutputStream out;
    private final DataWriter block = new DataWriter(BLOCK_TARGET_BYTES + 1024);
    private final DataWriter blockHeader = new DataWriter(BLOCK_HEADER_BYTES);
    private int blockRecords;
    private long bytesWritten;

    RunWriter(Path file) throws IOException {
        this(file, STREAM_BUFFER_BYTES);
    }

    /**
     * @param streamBufferBytes buffer below the block buffer; whole blocks bypass it, so a small
     *     one suffices where many writers are open at once (the join's partitions)
     */
    RunWriter(Path file, int streamBufferBytes) throws IOException {
        this.out = new BufferedOutputStream(Files.newOutputStream(file), streamBufferBytes);
        DataWriter header = new DataWriter(HEADER_BYTES);
        header.writeBytes(MAGIC);
        header.writeInt(VERSION);
        out.write(header.buffer(), 0, header.position());
        bytesWritten = HEADER_BYTES;
    }

    void write(byte[] key, int keyOffset, int keyLength, byte[] acc, int accOffset, int accLength) throws IOException {
        block.writeVarInt(keyLength);
        block.writeBytes(key, keyOffset, keyLength);
        block.writeVarInt(accLength);
        block.writeBytes(acc, accOffset, accLength);
        blockRecords++;
        if (block.position() >= BLOCK_TARGET_BYTES) {
            writeBlock();
        }
    }

    /** Writes the last block and the end marker and closes the file. */
    void finish() throws IOException {
        if (blockRecords > 0) {
            writeBlock();
        }
        writeBlock(); // the empty block is the end marker
        out.close();
    }

    long bytesWritten() {
        return bytesWritten;
    }

    @Override
    public void close() throws IOException {
        out.close();
    }

    private void writeBlock() throws IOException {
        CRC32C checksum = new CRC32C();
        checksum.update(block.buffer(), 0, block.position());
        int crc = (int) checksum.getValue(); // 0 for the empty end marker
        blockHeader.reset();
        blockHeader.writeInt(block.position());
        blockHeader.writeInt(blockRecords);
        blockHeader.writeInt(crc);
        out.write(blockHeader.buffer(), 0, BLOCK_HEADER_BYTES);
        out.write(block.buffer(), 0, block.position());
        bytesWritten += BLOCK_HEADER_BYTES + block.position();
        block.reset();
        blockRecords = 0;
    }
}
