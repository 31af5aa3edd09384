package io.duraflow.exchange.blocking;

import io.duraflow.exchange.PartitionFormat;

import io.duraflow.exchange.PartitionSummary;

import io.duraflow.exchange.Frames;
import io.duraflow.exchange.ResultPartitionWriter;

import io.duraflow.api.types.DataReader;
import io.duraflow.api.types.DataWriter;
import io.duraflow.api.types.TypeSerializer;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Locale;
import java.util.Objects;

/**
 * Writes one blocking result partition: a data file of {@linkplain Frames frames} and an index
 * saying where each subpartition's frames are; the index is renamed into place after the data file
 * is synced. Not thread-safe. Layout: see docs/design/data-exchange.md#partitionfilewriter.
 */
public final class PartitionFileWriter implements ResultPartitionWriter {
    /** Write-behind buffer of the data file; big enough that syscalls are not per record. */
    private static final int IO_BUFFER_BYTES = 256 * 1024;
    /** Per-subpartition buffers keep at most this much capacity between flushes (or their fair share). */
    private static final int RETAINED_BUFFER_BYTES = 64 * 1024;

    private enum State { OPEN, FINISHED, ABORTED }

    private final Path dataFile;
    private final Path indexFile;
    private final Path indexTempFile;
    private final int writeBufferBytes;
    private final int retainedBufferBytes;
    private final DataWriter[] buffers;
    private final int[] bufferedRecords;
    private final long[] recordBytes;
    private final long[] recordCounts;
    private final LongList[] frameOffsets;
    private final DataWriter scratch = new DataWriter();
    private final DataReader splitter = new DataReader();
    private final ByteBuffer io = ByteBuffer.allocateDirect(IO_BUFFER_BYTES);
    private final FileChannel channel;
    private long bufferedBytes;
    /** Offset in the data file of the next byte put into {@link #io}. */
    private long filePosition;
    private State state = State.OPEN;

    public PartitionFileWriter(Path dataFile, Path indexFile, int subpartitionCount, int writeBufferBytes)
            throws IOException {
        if (subpartitionCount < 1) {
            throw new IllegalArgumentException("subpartitionCount must be at least 1, was " + subpartitionCount);
        }
        if (writeBufferBytes < 1) {
            throw new IllegalArgumentException("writeBufferBytes must be positive, was " + writeBufferBytes);
        }
        this.dataFile = dataFile;
        this.indexFile = indexFile;
        this.indexTempFile = indexFile.resolveSibling(indexFile.getFileName() + ".tmp");
        this.writeBufferBytes = writeBufferBytes;
        this.retainedBufferBytes = Math.max(RETAINED_BUFFER_BYTES, 2 * (writeBufferBytes / subpartitionCount));
        this.buffers = new DataWriter[subpartitionCount];
        this.bufferedRecords = new int[subpartitionCount];
        this.recordBytes = new long[subpartitionCount];
        this.recordCounts = new long[subpartitionCount];
        this.frameOffsets = new LongList[subpartitionCount];
        for (int i = 0; i < subpartitionCount; i++) {
            buffers[i] = newBuffer();
            frameOffsets[i] = new LongList();
        }
        Files.deleteIfExists(indexFile);
        this.channel = FileChannel.open(dataFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING);
        io.put(PartitionFormat.DATA_MAGIC).putInt(PartitionFormat.VERSION);
        filePosition = PartitionFormat.DATA_HEADER_BYTES;
    }

    @Override
    public int subpartitionCount() {
        return buffers.length;
    }

    /** Appends one serialized record, {@code record[offset, offset + length)}, to a subpartition. */
    @Override
    public void write(int subpartition, byte[] record, int offset, int length) throws IOException {
        requireOpen();
        Objects.checkIndex(subpartition, buffers.length);
        Objects.checkFromIndexSize(offset, length, record.length);
        DataWriter buffer = buffers[subpartition];
        int before = buffer.position();
        buffer.writeVarInt(length);
        buffer.writeBytes(record, offset, length);
        bufferedRecords[subpartition]++;
        bufferedBytes += buffer.position() - before;
        if (bufferedBytes >= writeBufferBytes) {
            flushBuffers();
        }
    }

    /** Serializes {@code record} and appends it to a subpartition. */
    public <T> void write(int subpartition, TypeSerializer<T> serializer, T record) throws IOException {
        scratch.reset();
        serializer.write(record, scratch);
        write(subpartition, scratch.buffer(), 0, scratch.position());
    }

    /**
     * Writes what is buffered and the index, makes both files durable and closes them. If this
     * throws, the writer has been aborted: both files are gone.
     */
    @Override
    public PartitionSummary finish() throws IOException {
        requireOpen();
        try {
            flushBuffers();
            drain();
            channel.force(true);
            long dataFileBytes = filePosition;
            channel.close();
            writeIndex();
            syncDirectory(indexFile);
            if (!Objects.equals(dataFile.toAbsolutePath().getParent(), indexFile.toAbsolutePath().getParent())) {
                syncDirectory(dataFile);
            }
            state = State.FINISHED;
            return new PartitionSummary(recordBytes, recordCounts, dataFileBytes);
        } catch (IOException | RuntimeException e) {
            abort();
            throw e;
        }
    }

    /** Closes the writer and deletes both files (even after {@link #finish()}). Idempotent. */
    @Override
    public void abort() {
        state = State.ABORTED;
        try {
            channel.close();
        } catch (IOException ignored) {
            // The files are deleted next; nothing in them matters any more.
        }
        deleteQuietly(dataFile);
        deleteQuietly(indexTempFile);
        deleteQuietly(indexFile);
    }

    /** Aborts unless {@link #finish()} succeeded, so try-with-resources never leaves half a partition. */
    @Override
    public void close() {
        if (state == State.OPEN) {
            abort();
        }
    }

    private void requireOpen() {
        if (state != State.OPEN) {
            throw new IllegalStateException("partition writer for " + dataFile + " is " + state.name().toLowerCase(Locale.ROOT));
        }
    }

    private DataWriter newBuffer() {
        return new DataWriter(Math.min(retainedBufferBytes, 4096));
    }

    private void flushBuffers() throws IOException {
        for (int sub = 0; sub < buffers.length; sub++) {
            DataWriter buffer = buffers[sub];
            if (buffer.position() == 0) {
                continue;
            }
            writeFrames(sub, buffer.buffer(), buffer.position());
            recordCounts[sub] += bufferedRecords[sub];
            bufferedRecords[sub] = 0;
            if (buffer.buffer().length > retainedBufferBytes) {
                // A hot or skewed subpartition grew this buffer; give the memory back.
                buffers[sub] = newBuffer();
            } else {
                buffer.reset();
            }
        }
        bufferedBytes = 0;
    }

    /** Splits {@code bytes[0, end)} into frames of at most 1 MiB at record boundaries. */
    private void writeFrames(int subpartition, byte[] bytes, int end) throws IOException {
        if (end <= Frames.MAX_PAYLOAD_BYTES) {
            // What the loop below would do: a split needs more than MAX_PAYLOAD_BYTES in one frame.
            writeFrame(subpartition, bytes, 0, end);
            return;
        }
        splitter.reset(bytes, 0, end);
        int frameStart = 0;
        while (splitter.hasRemaining()) {
            int recordStart = splitter.position();
            int length = splitter.readVarInt();
            splitter.skip(length);
            if (splitter.position() - frameStart > Frames.MAX_PAYLOAD_BYTES && recordStart > frameStart) {
                writeFrame(subpartition, bytes, frameStart, recordStart - frameStart);
                frameStart = recordStart;
            }
        }
        writeFrame(subpartition, bytes, frameStart, end - frameStart);
    }

    private void writeFrame(int subpartition, byte[] payload, int offset, int length) throws IOException {
        frameOffsets[subpartition].add(filePosition);
        recordBytes[subpartition] += length;
        filePosition += Frames.HEADER_BYTES + length;
        if (io.remaining() < Frames.HEADER_BYTES) {
            drain();
        }
        io.putInt(subpartition).putInt(length).putInt(Frames.crc32c(payload, offset, length));
        int end = offset + length;
        while (offset < end) {
            if (!io.hasRemaining()) {
                drain();
            }
            int n = Math.min(end - offset, io.remaining());
            io.put(payload, offset, n);
            offset += n;
        }
    }

    private void drain() throws IOException {
        io.flip();
        while (io.hasRemaining()) {
            channel.write(io);
        }
        io.clear();
    }

    private void writeIndex() throws IOException {
        DataWriter index = new DataWriter(indexSize());
        index.writeBytes(PartitionFormat.INDEX_MAGIC);
        index.writeInt(PartitionFormat.VERSION);
        index.writeInt(buffers.length);
        for (int sub = 0; sub < buffers.length; sub++) {
            LongList offsets = frameOffsets[sub];
            index.writeLong(recordBytes[sub]);
            index.writeLong(recordCounts[sub]);
            index.writeInt(offsets.size());
            for (int i = 0; i < offsets.size(); i++) {
                index.writeLong(offsets.get(i));
            }
        }
        index.writeInt(Frames.crc32c(index.buffer(), 0, index.position()));
        try (FileChannel out = FileChannel.open(indexTempFile, StandardOpenOption.CREATE,
                StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer bytes = ByteBuffer.wrap(index.buffer(), 0, index.position());
            while (bytes.hasRemaining()) {
                out.write(bytes);
            }
            out.force(true);
        }
        try {
            Files.move(indexTempFile, indexFile, StandardCopyOption.ATOMIC_MOVE);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(indexTempFile, indexFile, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    private int indexSize() {
        long size = PartitionFormat.INDEX_HEADER_BYTES + PartitionFormat.INDEX_CRC_BYTES;
        for (LongList offsets : frameOffsets) {
            size += PartitionFormat.INDEX_ENTRY_FIXED_BYTES + 8L * offsets.size();
        }
        if (size > Integer.MAX_VALUE - 16) {
            throw new IllegalStateException("partition index for " + dataFile + " would exceed 2 GiB");
        }
        return (int) size;
    }

    /** Makes a rename or creation durable; not every platform can open a directory, which is fine. */
    private static void syncDirectory(Path file) {
        Path directory = file.toAbsolutePath().getParent();
        if (directory == null) {
            return;
        }
        try (FileChannel dir = FileChannel.open(directory, StandardOpenOption.READ)) {
            dir.force(true);
        } catch (IOException ignored) {
            // Windows cannot open directories; the rename is still atomic there.
        }
    }

    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException ignored) {
            // Best effort: the caller is already handling a failure or discarding the partition.
        }
    }
}
