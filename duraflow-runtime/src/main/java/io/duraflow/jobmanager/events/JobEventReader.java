package io.duraflow.jobmanager.events;

import com.google.protobuf.InvalidProtocolBufferException;
import io.duraflow.fs.FileSystem;
import io.duraflow.fs.FsPath;
import io.duraflow.fs.LocalFileSystem;
import io.duraflow.jobmanager.events.proto.JobEvent;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;

/**
 * Reads a job event log ({@link JobEventLogFormat}) for replay: torn ends of every file are
 * accepted with a warning, corruption is a {@link CorruptJobEventLogException}. What is accepted
 * and what is not, case by case: see docs/design/job-event-log.md#jobeventreader.
 */
public final class JobEventReader {
    private static final HexFormat HEX = HexFormat.of();

    private JobEventReader() {
    }

    /**
     * The events of a log and what was ignored.
     *
     * @param events all complete events, in the order they were recorded
     * @param warnings one line per ignored torn or zeroed file end, naming file and offset
     */
    public record ReadResult(List<JobEvent> events, List<String> warnings) {
        public ReadResult {
            events = List.copyOf(events);
            warnings = List.copyOf(warnings);
        }
    }

    /**
     * Reads every event of the log in {@code dir}, with the out-of-line collected data of the
     * current run read back in ({@link CollectedDataFiles}): what a recovery replays.
     *
     * @throws CorruptJobEventLogException if the log is corrupt; recovery must then restart the job from scratch
     * @throws IOException if a file cannot be read
     */
    public static ReadResult readAll(FileSystem fileSystem, FsPath dir) throws IOException {
        return CollectedDataFiles.resolve(fileSystem, dir, readAsRecorded(fileSystem, dir));
    }

    /**
     * Reads every event of the log in {@code dir} as its records hold it: out-of-line collected
     * data stays a {@code Collected.data_file} reference, and no such file is read. For showing the log.
     *
     * @throws CorruptJobEventLogException if the log is corrupt
     * @throws IOException if a file cannot be read
     */
    public static ReadResult readAsRecorded(FileSystem fileSystem, FsPath dir) throws IOException {
        List<JobEvent> events = new ArrayList<>();
        List<String> warnings = new ArrayList<>();
        SortedMap<Integer, FsPath> files = JobEventLogFormat.listFiles(fileSystem, dir);
        int expected = 0;
        for (Map.Entry<Integer, FsPath> file : files.entrySet()) {
            if (file.getKey() != expected) {
                throw new CorruptJobEventLogException(dir.resolve(JobEventLogFormat.fileName(expected)), 0,
                        "missing, but " + file.getValue().name() + " exists");
            }
            readFile(fileSystem, file.getValue(), events, warnings);
            expected++;
        }
        return new ReadResult(events, warnings);
    }

    /** {@link #readAll(FileSystem, FsPath)} of a local directory. */
    public static ReadResult readAll(Path dir) throws IOException {
        return readAll(LocalFileSystem.INSTANCE, FsPath.of(dir));
    }

    /** The index of the next file a new session creates: one more than the highest existing index, 0 if none. */
    public static int nextFileIndex(FileSystem fileSystem, FsPath dir) throws IOException {
        SortedMap<Integer, FsPath> files = JobEventLogFormat.listFiles(fileSystem, dir);
        return files.isEmpty() ? 0 : Math.addExact(files.lastKey(), 1);
    }

    /** {@link #nextFileIndex(FileSystem, FsPath)} of a local directory. */
    public static int nextFileIndex(Path dir) throws IOException {
        return nextFileIndex(LocalFileSystem.INSTANCE, FsPath.of(dir));
    }

    private static void readFile(FileSystem fileSystem, FsPath file, List<JobEvent> events, List<String> warnings)
            throws IOException {
        try (InputStream in = new BufferedInputStream(fileSystem.open(file), 1 << 16)) {
            if (!readHeader(file, in, warnings)) {
                return;
            }
            long offset = JobEventLogFormat.FILE_HEADER_BYTES;
            while (true) {
                byte[] header = in.readNBytes(JobEventLogFormat.RECORD_HEADER_BYTES);
                if (header.length == 0) {
                    return;
                }
                if (header.length < JobEventLogFormat.RECORD_HEADER_BYTES) {
                    warnings.add(torn(file, offset, header.length, "record header of "
                            + JobEventLogFormat.RECORD_HEADER_BYTES + " bytes"));
                    return;
                }
                ByteBuffer fields = ByteBuffer.wrap(header);
                int length = fields.getInt();
                int checksum = fields.getInt();
                if (length == 0 && checksum == 0) {
                    long zeros = zeroTail(in);
                    if (zeros >= 0) {
                        warnings.add(zeroed(file, offset, zeros + header.length));
                        return;
                    }
                }
                if (length <= 0 || length > JobEventLogFormat.MAX_PAYLOAD_BYTES) {
                    throw new CorruptJobEventLogException(file, offset, "invalid record length " + length
                            + " (expected 1 to " + JobEventLogFormat.MAX_PAYLOAD_BYTES + ")");
                }
                byte[] payload = in.readNBytes(length);
                if (payload.length < length) {
                    warnings.add(torn(file, offset, header.length + payload.length,
                            "record of " + (header.length + length) + " bytes"));
                    return;
                }
                events.add(decode(file, offset, checksum, payload));
                offset += header.length + length;
            }
        }
    }

    /** Checks the file header; false if the file ends within it (with a warning). */
    private static boolean readHeader(FsPath file, InputStream in, List<String> warnings) throws IOException {
        byte[] expected = JobEventLogFormat.fileHeader().array();
        byte[] header = in.readNBytes(expected.length);
        // A torn header is shorter than 8 bytes: it ends before the version's last byte, where the versions differ.
        if (header.length < expected.length && Arrays.equals(header, Arrays.copyOf(expected, header.length))) {
            warnings.add(header.length == 0
                    ? "ignored empty job event log " + file + " (its JobManager stopped before writing)"
                    : torn(file, 0, header.length, "file header of " + expected.length + " bytes"));
            return false;
        }
        if (isZero(header)) {
            long zeros = zeroTail(in);
            if (zeros >= 0) {
                warnings.add(zeroed(file, 0, zeros + header.length));
                return false;
            }
        }
        if (header.length < JobEventLogFormat.MAGIC.length
                || !Arrays.equals(header, 0, JobEventLogFormat.MAGIC.length, JobEventLogFormat.MAGIC, 0,
                        JobEventLogFormat.MAGIC.length)) {
            throw new CorruptJobEventLogException(file, 0, "bad magic " + HEX.formatHex(header, 0,
                    Math.min(header.length, JobEventLogFormat.MAGIC.length)) + ", expected 44464556 ('DFEV')");
        }
        if (header.length < expected.length) {
            throw new CorruptJobEventLogException(file, JobEventLogFormat.MAGIC.length,
                    "torn file header with a bad version " + HEX.formatHex(header, JobEventLogFormat.MAGIC.length,
                            header.length));
        }
        int version = ByteBuffer.wrap(header, JobEventLogFormat.MAGIC.length, 4).getInt();
        if (version < JobEventLogFormat.OLDEST_READABLE_VERSION || version > JobEventLogFormat.VERSION) {
            throw new CorruptJobEventLogException(file, JobEventLogFormat.MAGIC.length, "unsupported format version "
                    + version + "; this version of Duraflow reads versions " + JobEventLogFormat.OLDEST_READABLE_VERSION
                    + " to " + JobEventLogFormat.VERSION);
        }
        return true;
    }

    private static JobEvent decode(FsPath file, long offset, int checksum, byte[] payload)
            throws CorruptJobEventLogException {
        int actual = JobEventLogFormat.crc32c(payload, 0, payload.length);
        if (actual != checksum) {
            throw new CorruptJobEventLogException(file, offset, String.format(
                    "checksum mismatch: the record says %08x but its %d-byte payload hashes to %08x",
                    checksum, payload.length, actual));
        }
        JobEvent event;
        try {
            event = JobEvent.parseFrom(payload);
        } catch (InvalidProtocolBufferException e) {
            throw new CorruptJobEventLogException(file, offset, "unparsable event: " + e.getMessage());
        }
        if (event.getEventCase() == JobEvent.EventCase.EVENT_NOT_SET) {
            throw new CorruptJobEventLogException(file, offset,
                    "event of an unknown type (written by a newer version of Duraflow?)");
        }
        return event;
    }

    /** Reads the stream to its end: the number of bytes read if all are zero, else -1. */
    private static long zeroTail(InputStream in) throws IOException {
        long count = 0;
        byte[] chunk = new byte[8192];
        for (int n; (n = in.read(chunk)) > 0; ) {
            for (int i = 0; i < n; i++) {
                if (chunk[i] != 0) {
                    return -1;
                }
            }
            count += n;
        }
        return count;
    }

    private static boolean isZero(byte[] bytes) {
        for (byte b : bytes) {
            if (b != 0) {
                return false;
            }
        }
        return true;
    }

    private static String torn(FsPath file, long offset, long present, String what) {
        return "ignored torn end of job event log " + file + " at offset " + offset + ": " + present + " bytes of a "
                + what + " (its JobManager stopped while writing)";
    }

    private static String zeroed(FsPath file, long offset, long zeros) {
        return "ignored " + zeros + " zero bytes at the end of job event log " + file + " from offset " + offset
                + " (space that was never written)";
    }
}
