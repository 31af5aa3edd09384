package io.duraflow.jobmanager.events;

import com.google.protobuf.CodedOutputStream;
import io.duraflow.fs.FileStatus;
import io.duraflow.fs.FileSystem;
import io.duraflow.fs.FsPath;
import io.duraflow.jobmanager.events.proto.JobEvent;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.CRC32C;

/**
 * The on-disk format of a job event log, version 2: a directory of {@code events.<n>} files, one
 * per JobManager session, each a header and CRC32C-checked protobuf records. Drawn byte by byte,
 * with the example {@code JobEventReaderTest} checks, in
 * docs/design/job-event-log.md#jobeventlogformat.
 */
public final class JobEventLogFormat {
    /** The first four bytes of every file: {@code DFEV}. */
    public static final byte[] MAGIC = {'D', 'F', 'E', 'V'};
    /** The version writers write. */
    public static final int VERSION = 2;
    /** The oldest version readers still read. */
    public static final int OLDEST_READABLE_VERSION = 1;
    /** Magic and version. */
    public static final int FILE_HEADER_BYTES = 8;
    /** Payload length and CRC32C in front of every payload. */
    public static final int RECORD_HEADER_BYTES = 8;
    /** Largest payload a writer writes and a reader accepts; anything longer is corruption. */
    public static final int MAX_PAYLOAD_BYTES = 64 << 20;

    static final String FILE_PREFIX = "events.";
    private static final Pattern FILE_NAME = Pattern.compile("events\\.(0|[1-9][0-9]{0,8})");

    private JobEventLogFormat() {
    }

    /** The name of the file with this index: {@code events.<index>}. */
    public static String fileName(int index) {
        if (index < 0) {
            throw new IllegalArgumentException("negative file index " + index);
        }
        return FILE_PREFIX + index;
    }

    /** The file header: magic and version. */
    static ByteBuffer fileHeader() {
        return ByteBuffer.allocate(FILE_HEADER_BYTES).put(MAGIC).putInt(VERSION).flip();
    }

    /**
     * One complete record for an event: header and payload.
     *
     * @throws IllegalArgumentException if the event's payload is longer than {@link #MAX_PAYLOAD_BYTES}
     */
    static byte[] encodeRecord(JobEvent event) {
        int payloadLength = event.getSerializedSize();
        if (payloadLength > MAX_PAYLOAD_BYTES || payloadLength < 0) {
            throw new IllegalArgumentException("job event of " + payloadLength + " bytes is longer than the "
                    + MAX_PAYLOAD_BYTES + "-byte limit of a job event log record");
        }
        byte[] record = new byte[RECORD_HEADER_BYTES + payloadLength];
        CodedOutputStream out = CodedOutputStream.newInstance(record, RECORD_HEADER_BYTES, payloadLength);
        try {
            event.writeTo(out);
            out.checkNoSpaceLeft();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot encode a job event into an array", e);
        }
        ByteBuffer.wrap(record, 0, RECORD_HEADER_BYTES)
                .putInt(payloadLength)
                .putInt(crc32c(record, RECORD_HEADER_BYTES, payloadLength));
        return record;
    }

    static int crc32c(byte[] bytes, int offset, int length) {
        CRC32C crc = new CRC32C();
        crc.update(bytes, offset, length);
        return (int) crc.getValue();
    }

    /** The log files in a directory by index; other files are ignored; empty if the directory does not exist. */
    static SortedMap<Integer, FsPath> listFiles(FileSystem fileSystem, FsPath dir) throws IOException {
        SortedMap<Integer, FsPath> files = new TreeMap<>();
        for (FileStatus entry : fileSystem.listIfExists(dir)) {
            Matcher m = FILE_NAME.matcher(entry.path().name());
            if (m.matches()) {
                files.put(Integer.parseInt(m.group(1)), entry.path());
            }
        }
        return files;
    }
}
