package io.duraflow.exchange.blocking;

import io.duraflow.exchange.PartitionFormat;

import io.duraflow.exchange.Frames;

import io.duraflow.api.types.CorruptDataException;
import io.duraflow.api.types.DataReader;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Objects;

/**
 * Reads a partition written by {@link PartitionFileWriter} (whose javadoc draws the format).
 * {@link #open} checks the whole index (magic, version, checksum, structure) and the data
 * file's header and exact size, so torn and truncated files fail here, not half way through a
 * transfer; {@link FrameCursor} then checks every frame's checksum as it is read.
 *
 * <p>The reader is safe to share between threads: cursors read with positional reads and keep
 * their own position. Each cursor is used by one thread.
 */
public final class PartitionFileReader implements Closeable {
    /** How many bytes of whole frames one fetch message carries, at most (one frame may exceed it). */
    public static final int FETCH_CHUNK_BYTES = 1 << 20;

    private final Path dataFile;
    private final FileChannel data;
    private final long dataFileBytes;
    private final long[] recordBytes;
    private final long[] recordCounts;
    private final long[][] frameOffsets;

    private PartitionFileReader(Path dataFile, FileChannel data, long dataFileBytes, Index index) {
        this.dataFile = dataFile;
        this.data = data;
        this.dataFileBytes = dataFileBytes;
        this.recordBytes = index.recordBytes;
        this.recordCounts = index.recordCounts;
        this.frameOffsets = index.frameOffsets;
    }

    /**
     * Opens and validates a partition.
     *
     * @throws CorruptPartitionException if either file is not a complete, intact partition
     */
    public static PartitionFileReader open(Path dataFile, Path indexFile) throws IOException {
        Index index = Index.parse(indexFile, Files.readAllBytes(indexFile));
        FileChannel data = FileChannel.open(dataFile, StandardOpenOption.READ);
        try {
            long size = data.size();
            checkDataHeader(dataFile, data, size);
            long expected = PartitionFormat.DATA_HEADER_BYTES + index.describedDataBytes();
            if (size != expected) {
                throw CorruptPartitionException.data(dataFile, "size is " + size
                        + " bytes but the index describes " + expected + " (torn or truncated write?)");
            }
            return new PartitionFileReader(dataFile, data, size, index);
        } catch (IOException | RuntimeException e) {
            data.close();
            throw e;
        }
    }

    private static void checkDataHeader(Path dataFile, FileChannel data, long size) throws IOException {
        if (size < PartitionFormat.DATA_HEADER_BYTES) {
            throw CorruptPartitionException.data(dataFile, "only " + size + " bytes, shorter than the header");
        }
        byte[] header = new byte[PartitionFormat.DATA_HEADER_BYTES];
        readFully(dataFile, data, 0, header, 0, header.length);
        if (!PartitionFormat.hasMagic(header, PartitionFormat.DATA_MAGIC)) {
            throw CorruptPartitionException.data(dataFile, "bad magic (not a partition data file)");
        }
        int version = PartitionFormat.readInt(header, 4);
        if (version != PartitionFormat.VERSION) {
            throw CorruptPartitionException.data(dataFile, "unsupported version " + version);
        }
    }

    public Path dataFile() {
        return dataFile;
    }

    public long dataFileBytes() {
        return dataFileBytes;
    }

    public int subpartitionCount() {
        return recordBytes.length;
    }

    /** Payload bytes of a subpartition (records with their length prefixes). */
    public long bytes(int subpartition) {
        return recordBytes[subpartition];
    }

    public long records(int subpartition) {
        return recordCounts[subpartition];
    }

    /** Iterates the frames of subpartitions {@code [fromSubpartition, toSubpartitionExclusive)}. */
    public FrameCursor frames(int fromSubpartition, int toSubpartitionExclusive) {
        Objects.checkFromToIndex(fromSubpartition, toSubpartitionExclusive, subpartitionCount());
        return new FrameCursor(this, fromSubpartition, toSubpartitionExclusive);
    }

    @Override
    public void close() throws IOException {
        data.close();
    }

    int frameCount(int subpartition) {
        return frameOffsets[subpartition].length;
    }

    long frameOffset(int subpartition, int frame) {
        return frameOffsets[subpartition][frame];
    }

    void readFully(long position, byte[] target, int offset, int length) throws IOException {
        readFully(dataFile, data, position, target, offset, length);
    }

    private static void readFully(Path file, FileChannel channel, long position, byte[] target, int offset, int length)
            throws IOException {
        ByteBuffer buffer = ByteBuffer.wrap(target, offset, length);
        while (buffer.hasRemaining()) {
            int read = channel.read(buffer, position + buffer.position() - offset);
            if (read < 0) {
                throw CorruptPartitionException.data(file, "unexpected end of file at offset "
                        + (position + buffer.position() - offset));
            }
        }
    }

    /** The parsed, validated index. */
    private record Index(long[] recordBytes, long[] recordCounts, long[][] frameOffsets) {
        /** Bytes of frames (headers and payloads) the index says the data file holds. */
        long describedDataBytes() {
            long total = 0;
            for (int sub = 0; sub < recordBytes.length; sub++) {
                total += recordBytes[sub] + (long) Frames.HEADER_BYTES * frameOffsets[sub].length;
            }
            return total;
        }

        static Index parse(Path file, byte[] bytes) throws CorruptPartitionException {
            int minimum = PartitionFormat.INDEX_HEADER_BYTES + PartitionFormat.INDEX_CRC_BYTES;
            if (bytes.length < minimum) {
                throw CorruptPartitionException.index(file, "only " + bytes.length + " bytes, shorter than the header");
            }
            if (!PartitionFormat.hasMagic(bytes, PartitionFormat.INDEX_MAGIC)) {
                throw CorruptPartitionException.index(file, "bad magic (not a partition index file)");
            }
            int version = PartitionFormat.readInt(bytes, 4);
            if (version != PartitionFormat.VERSION) {
                throw CorruptPartitionException.index(file, "unsupported version " + version);
            }
            int crcAt = bytes.length - PartitionFormat.INDEX_CRC_BYTES;
            if (Frames.crc32c(bytes, 0, crcAt) != PartitionFormat.readInt(bytes, crcAt)) {
                throw CorruptPartitionException.index(file, "checksum mismatch");
            }
            DataReader in = new DataReader(bytes, 8, crcAt - 8);
            try {
                Index index = readEntries(file, in);
                if (in.hasRemaining()) {
                    throw CorruptPartitionException.index(file, in.remaining() + " unexpected bytes after the last entry");
                }
                return index;
            } catch (CorruptDataException e) {
                throw CorruptPartitionException.index(file, "entries end early at offset " + in.position());
            }
        }

        private static Index readEntries(Path file, DataReader in) throws CorruptPartitionException {
            int count = in.readInt();
            if (count < 0 || count > in.remaining() / PartitionFormat.INDEX_ENTRY_FIXED_BYTES) {
                throw CorruptPartitionException.index(file, "impossible subpartition count " + count);
            }
            long[] bytes = new long[count];
            long[] records = new long[count];
            long[][] offsets = new long[count][];
            for (int sub = 0; sub < count; sub++) {
                int entryAt = in.position();
                bytes[sub] = in.readLong();
                records[sub] = in.readLong();
                int frames = in.readInt();
                if (bytes[sub] < 0 || records[sub] < 0 || frames < 0 || frames > in.remaining() / 8) {
                    throw CorruptPartitionException.index(file, "impossible entry for subpartition " + sub
                            + " at offset " + entryAt);
                }
                offsets[sub] = new long[frames];
                long previous = PartitionFormat.DATA_HEADER_BYTES - 1;
                for (int f = 0; f < frames; f++) {
                    long offset = in.readLong();
                    if (offset <= previous) {
                        throw CorruptPartitionException.index(file, "frame offsets of subpartition " + sub
                                + " are not ascending at offset " + (in.position() - 8));
                    }
                    offsets[sub][f] = offset;
                    previous = offset;
                }
            }
            return new Index(bytes, records, offsets);
        }
    }

    /** Hands the frames of subpartitions {@code [from, to)} to {@code consumer} in chunks of whole frames. */
    public void forEachChunk(int from, int to, java.util.function.Consumer<byte[]> consumer) throws IOException {
        FrameCursor cursor = frames(from, to);
        byte[] chunk;
        while ((chunk = cursor.nextChunk(FETCH_CHUNK_BYTES)) != null) {
            consumer.accept(chunk);
        }
    }
}
