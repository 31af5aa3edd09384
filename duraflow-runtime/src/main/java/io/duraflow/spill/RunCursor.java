package io.duraflow.spill;

import io.duraflow.api.types.CorruptDataException;
import io.duraflow.api.types.DataReader;
import java.io.BufferedInputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.CRC32C;

/**
 * Reads a spill run (format in {@link RunWriter}) record by record, one verified block in memory
 * at a time. The current record is described in place: {@link #block()} with the key and
 * accumulator offsets, valid until the next {@link #advance()}. Damage is reported as a
 * {@link CorruptDataException} naming the file and the block's offset.
 */
final class RunCursor implements Closeable {
    private static final int STREAM_BUFFER_BYTES = 16 * 1024;

    private final Path file;
    /** Position of the run among the runs being merged; older runs have smaller indexes. */
    private final int runIndex;
    private final KeyOrder.KeyHasher hasher;
    private final InputStream in;
    private final byte[] blockHeader = new byte[RunWriter.BLOCK_HEADER_BYTES];
    private final DataReader records = new DataReader();
    private byte[] block = new byte[RunWriter.BLOCK_TARGET_BYTES];
    private long nextBlockOffset = RunWriter.HEADER_BYTES;
    private long blockOffset;
    private int blockRecordsLeft;
    private boolean ended;
    private int hash;
    private int keyOffset;
    private int keyLength;
    private int accOffset;
    private int accLength;

    RunCursor(Path file, int runIndex, KeyOrder.KeyHasher hasher) throws IOException {
        this.file = file;
        this.runIndex = runIndex;
        this.hasher = hasher;
        this.in = new BufferedInputStream(Files.newInputStream(file), STREAM_BUFFER_BYTES);
        try {
            byte[] header = in.readNBytes(RunWriter.HEADER_BYTES);
            if (header.length < RunWriter.HEADER_BYTES || !startsWith(header, RunWriter.MAGIC)) {
                throw corrupt(0, "bad magic (not a spill run)");
            }
            int version = new DataReader(header, 4, 4).readInt();
            if (version != RunWriter.VERSION) {
                throw corrupt(0, "unsupported version " + version);
            }
        } catch (IOException | RuntimeException e) {
            in.close();
            throw e;
        }
    }

    /** Moves to the next record; false at the end of the run. */
    boolean advance() throws IOException {
        while (blockRecordsLeft == 0) {
            if (ended || !readBlock()) {
                return false;
            }
        }
        try {
            keyLength = records.readVarInt();
            keyOffset = records.position();
            records.skip(keyLength);
            accLength = records.readVarInt();
            accOffset = records.position();
            records.skip(accLength);
        } catch (CorruptDataException e) {
            throw corrupt(blockOffset, "record does not fit its block");
        }
        blockRecordsLeft--;
        if (blockRecordsLeft == 0 && records.hasRemaining()) {
            throw corrupt(blockOffset, records.remaining() + " bytes after the block's last record");
        }
        hash = hasher.hash(block, keyOffset, keyLength);
        return true;
    }

    private boolean readBlock() throws IOException {
        blockOffset = nextBlockOffset;
        if (in.readNBytes(blockHeader, 0, blockHeader.length) < blockHeader.length) {
            throw corrupt(blockOffset, "file ends without an end marker (truncated)");
        }
        DataReader header = new DataReader(blockHeader);
        int length = header.readInt();
        int count = header.readInt();
        int crc = header.readInt();
        if (length < 0 || count < 0 || (length == 0) != (count == 0)) {
            throw corrupt(blockOffset, "impossible block header (" + length + " bytes, " + count + " records)");
        }
        if (length > block.length) {
            block = new byte[length];
        }
        if (in.readNBytes(block, 0, length) < length) {
            throw corrupt(blockOffset, "block ends early (truncated)");
        }
        CRC32C checksum = new CRC32C();
        checksum.update(block, 0, length);
        if ((int) checksum.getValue() != crc) {
            throw corrupt(blockOffset, "checksum mismatch");
        }
        nextBlockOffset = blockOffset + RunWriter.BLOCK_HEADER_BYTES + length;
        if (count == 0) {
            ended = true;
            if (in.read() >= 0) {
                throw corrupt(nextBlockOffset, "bytes after the end marker");
            }
            return false;
        }
        records.reset(block, 0, length);
        blockRecordsLeft = count;
        return true;
    }

    int runIndex() {
        return runIndex;
    }

    int hash() {
        return hash;
    }

    byte[] block() {
        return block;
    }

    int keyOffset() {
        return keyOffset;
    }

    int keyLength() {
        return keyLength;
    }

    int accOffset() {
        return accOffset;
    }

    int accLength() {
        return accLength;
    }

    @Override
    public void close() throws IOException {
        in.close();
    }

    private CorruptDataException corrupt(long offset, String problem) {
        return new CorruptDataException("corrupt spill run " + file + " at offset " + offset + ": " + problem);
    }

    private static boolean startsWith(byte[] bytes, byte[] prefix) {
        for (int i = 0; i < prefix.length; i++) {
            if (bytes[i] != prefix[i]) {
                return false;
            }
        }
        return true;
    }

    /** Orders cursors by their current key, then oldest run first, so partials merge in spill order. */
    static int compare(RunCursor a, RunCursor b) {
        int byKey = KeyOrder.compare(a.hash, a.block, a.keyOffset, a.keyLength, b.hash, b.block, b.keyOffset, b.keyLength);
        return byKey != 0 ? byKey : Integer.compare(a.runIndex, b.runIndex);
    }
}
