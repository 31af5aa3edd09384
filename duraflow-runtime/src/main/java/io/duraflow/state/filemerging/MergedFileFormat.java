package io.duraflow.state.filemerging;

import io.duraflow.fs.FileSystem;
import io.duraflow.fs.FsPath;
import io.duraflow.state.FileSegmentHandle;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.NoSuchFileException;
import java.util.Optional;
import java.util.zip.CRC32C;

/**
 * The physical file of checkpoint file merging, version 1: a header, then segments, each followed
 * by a trailer with its length and CRC32C. Drawn byte by byte, with the example {@code
 * MergedFileFormatTest} checks, in docs/design/checkpoint-file-merging.md#mergedfileformat.
 */
public final class MergedFileFormat {
    public static final int VERSION = 1;
    public static final int HEADER_BYTES = 8;
    public static final int TRAILER_BYTES = 16;
    static final int FILE_MAGIC = 0x44464d47; // "DFMG"
    static final int SEGMENT_MAGIC = 0x44465347; // "DFSG"

    private MergedFileFormat() {
    }

    /** The 8 header bytes every merged file starts with. */
    public static byte[] header() {
        return ByteBuffer.allocate(HEADER_BYTES).putInt(FILE_MAGIC).putInt(VERSION).array();
    }

    /** The 16 bytes that follow a segment of {@code length} bytes whose CRC32C is {@code crc}. */
    public static byte[] trailer(long length, int crc) {
        return ByteBuffer.allocate(TRAILER_BYTES).putInt(SEGMENT_MAGIC).putLong(length).putInt(crc).array();
    }

    /**
     * Checks one segment of a merged file: the file starts with a version 1 header, the segment's
     * bytes are there, and the trailer after them names their length and CRC32C.
     *
     * @return empty if the segment is whole, else why not, in words that name the file
     */
    public static Optional<String> verify(FileSystem fileSystem, FileSegmentHandle segment) throws IOException {
        FsPath file = segment.file();
        try {
            // The length first: a ranged read of a file that ends too early fails as a whole
            // (FileSystem#open), which would not say where the file ends.
            long fileLength = fileSystem.status(file).lengthBytes();
            if (fileLength < HEADER_BYTES) {
                return Optional.of(file + " is " + fileLength + " bytes long, shorter than the header of a merged"
                        + " checkpoint file");
            }
            byte[] header;
            try (InputStream in = fileSystem.open(file, 0, HEADER_BYTES)) {
                header = in.readNBytes(HEADER_BYTES);
            }
            ByteBuffer head = ByteBuffer.wrap(header);
            int magic = head.getInt();
            int version = head.getInt();
            if (magic != FILE_MAGIC) {
                return Optional.of(file + " is not a merged checkpoint file (magic 0x" + Integer.toHexString(magic)
                        + ", expected 0x" + Integer.toHexString(FILE_MAGIC) + ")");
            }
            if (version != VERSION) {
                return Optional.of(file + " is a merged checkpoint file of version " + version + "; this Duraflow reads"
                        + " version " + VERSION);
            }
            if (segment.offset() < HEADER_BYTES) {
                return Optional.of("segment at offset " + segment.offset() + " of " + file + " overlaps its header");
            }
            if (fileLength < segment.offset() + segment.length()) {
                return Optional.of(endsInside(segment));
            }
            if (fileLength < segment.offset() + segment.length() + TRAILER_BYTES) {
                return Optional.of("segment of " + segment.length() + " bytes at offset " + segment.offset() + " of "
                        + file + " has no whole trailer (the file ends inside it)");
            }
            CRC32C crc = new CRC32C();
            byte[] trailer;
            try (InputStream in = fileSystem.open(file, segment.offset(), segment.length() + TRAILER_BYTES)) {
                byte[] buffer = new byte[64 * 1024];
                long left = segment.length();
                while (left > 0) {
                    int read = in.read(buffer, 0, (int) Math.min(buffer.length, left));
                    if (read < 0) {
                        throw new EOFException();
                    }
                    crc.update(buffer, 0, read);
                    left -= read;
                }
                trailer = in.readNBytes(TRAILER_BYTES);
            }
            if (trailer.length < TRAILER_BYTES) {
                return Optional.of("segment of " + segment.length() + " bytes at offset " + segment.offset() + " of "
                        + file + " has no whole trailer (the file ends inside it)");
            }
            ByteBuffer tail = ByteBuffer.wrap(trailer);
            int segmentMagic = tail.getInt();
            long length = tail.getLong();
            int expectedCrc = tail.getInt();
            if (segmentMagic != SEGMENT_MAGIC || length != segment.length()) {
                return Optional.of("segment at offset " + segment.offset() + " of " + file + " has no trailer of a "
                        + segment.length() + "-byte segment after it (magic 0x" + Integer.toHexString(segmentMagic)
                        + ", length " + length + "): the handle does not match the file");
            }
            if ((int) crc.getValue() != expectedCrc) {
                return Optional.of("segment of " + segment.length() + " bytes at offset " + segment.offset() + " of "
                        + file + " has CRC32C 0x" + Integer.toHexString((int) crc.getValue()) + ", its trailer says 0x"
                        + Integer.toHexString(expectedCrc) + ": the bytes are corrupt");
            }
            return Optional.empty();
        } catch (NoSuchFileException e) {
            return Optional.of(file + " does not exist");
        } catch (EOFException e) {
            return Optional.of(endsInside(segment)); // the file shrank while being read
        }
    }

    private static String endsInside(FileSegmentHandle segment) {
        return segment.file() + " ends inside the segment of " + segment.length() + " bytes at offset "
                + segment.offset();
    }
}
