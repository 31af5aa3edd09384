package io.duraflow.exchange.blocking;

import io.duraflow.exchange.PartitionFormat;

import io.duraflow.exchange.Frames;

import java.io.IOException;

/**
 * Reads the raw frames (header and payload, exactly as stored) of a range of subpartitions:
 * subpartition by subpartition, each in file order. Every frame is checked before it is
 * returned: its checksum, that it lies inside the file, and that it belongs to the subpartition
 * the index filed it under. The bytes can be sent as they are and decoded with
 * {@link Frames#iterate}. Not thread-safe; obtain one per reader thread from
 * {@link PartitionFileReader#frames}.
 */
public final class FrameCursor {
    private final PartitionFileReader reader;
    private final int toSubpartition;
    /** Position: the next frame to return is frame {@code frame} of subpartition {@code subpartition}. */
    private int subpartition;
    private int frame;
    private final byte[] header = new byte[Frames.HEADER_BYTES];
    /** Frames planned for the chunk being read; reused between calls. */
    private final LongList plannedOffsets = new LongList();
    private final LongList plannedLengths = new LongList();
    private final LongList plannedSubpartitions = new LongList();

    FrameCursor(PartitionFileReader reader, int fromSubpartition, int toSubpartitionExclusive) {
        this.reader = reader;
        this.subpartition = fromSubpartition;
        this.toSubpartition = toSubpartitionExclusive;
    }

    public boolean hasNext() {
        while (subpartition < toSubpartition && frame == reader.frameCount(subpartition)) {
            subpartition++;
            frame = 0;
        }
        return subpartition < toSubpartition;
    }

    /** The next single frame, or null when the range is exhausted. */
    public byte[] nextFrame() throws IOException {
        return nextChunk(0);
    }

    /**
     * Reads whole frames, as many as fit in {@code maxBytes}, into one array. A frame larger than
     * {@code maxBytes} is returned alone, so every call makes progress.
     *
     * @return the frames, or null when the range is exhausted (then {@link #hasNext()} is false)
     * @throws CorruptPartitionException if a frame is damaged or misplaced
     */
    public byte[] nextChunk(int maxBytes) throws IOException {
        if (!hasNext()) {
            return null;
        }
        int total = planChunk(maxBytes);
        byte[] chunk = new byte[total];
        readPlanned(chunk);
        verifyPlanned(chunk);
        return chunk;
    }

    /** Reads frame headers ahead to decide which frames go into the chunk; returns its size. */
    private int planChunk(int maxBytes) throws IOException {
        plannedOffsets.clear();
        plannedLengths.clear();
        plannedSubpartitions.clear();
        long total = 0;
        while (hasNext()) {
            long offset = reader.frameOffset(subpartition, frame);
            long frameBytes = Frames.HEADER_BYTES + (long) readHeader(offset);
            boolean empty = plannedOffsets.size() == 0;
            if (!empty && total + frameBytes > maxBytes) {
                break;
            }
            if (total + frameBytes > Integer.MAX_VALUE - 8) {
                if (empty) {
                    throw CorruptPartitionException.frame(reader.dataFile(), offset, subpartition,
                            "frame of " + frameBytes + " bytes does not fit in an array");
                }
                break;
            }
            plannedOffsets.add(offset);
            plannedLengths.add(frameBytes);
            plannedSubpartitions.add(subpartition);
            total += frameBytes;
            frame++;
        }
        return (int) total;
    }

    /** Checks a frame header against the index and the file size; returns its payload length. */
    private int readHeader(long offset) throws IOException {
        if (offset + Frames.HEADER_BYTES > reader.dataFileBytes()) {
            throw CorruptPartitionException.frame(reader.dataFile(), offset, subpartition,
                    "header lies beyond the end of the file (" + reader.dataFileBytes() + " bytes)");
        }
        reader.readFully(offset, header, 0, Frames.HEADER_BYTES);
        int storedSubpartition = PartitionFormat.readInt(header, 0);
        if (storedSubpartition != subpartition) {
            throw CorruptPartitionException.frame(reader.dataFile(), offset, subpartition,
                    "frame header says subpartition " + storedSubpartition);
        }
        int length = PartitionFormat.readInt(header, 4);
        if (length < 0 || offset + Frames.HEADER_BYTES + length > reader.dataFileBytes()) {
            throw CorruptPartitionException.frame(reader.dataFile(), offset, subpartition,
                    "payload length " + length + " runs past the end of the file (" + reader.dataFileBytes() + " bytes)");
        }
        return length;
    }

    /** Reads the planned frames, one positional read per run of adjacent frames. */
    private void readPlanned(byte[] chunk) throws IOException {
        int position = 0;
        int i = 0;
        int count = plannedOffsets.size();
        while (i < count) {
            long start = plannedOffsets.get(i);
            long length = plannedLengths.get(i);
            int j = i + 1;
            while (j < count && plannedOffsets.get(j) == start + length) {
                length += plannedLengths.get(j);
                j++;
            }
            reader.readFully(start, chunk, position, (int) length);
            position += (int) length;
            i = j;
        }
    }

    private void verifyPlanned(byte[] chunk) throws IOException {
        int position = 0;
        for (int i = 0; i < plannedOffsets.size(); i++) {
            int payloadLength = (int) plannedLengths.get(i) - Frames.HEADER_BYTES;
            int expectedCrc = PartitionFormat.readInt(chunk, position + 8);
            boolean headerUnchanged = PartitionFormat.readInt(chunk, position) == plannedSubpartitions.get(i)
                    && PartitionFormat.readInt(chunk, position + 4) == payloadLength;
            if (!headerUnchanged
                    || Frames.crc32c(chunk, position + Frames.HEADER_BYTES, payloadLength) != expectedCrc) {
                throw CorruptPartitionException.frame(reader.dataFile(), plannedOffsets.get(i),
                        (int) plannedSubpartitions.get(i), "checksum mismatch");
            }
            position += (int) plannedLengths.get(i);
        }
    }
}
