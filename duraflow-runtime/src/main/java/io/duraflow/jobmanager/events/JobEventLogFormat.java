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
 * The on-disk format of a job event log, version 2.
 *
 * <p>A job's log is a directory of files, one per JobManager session that recorded events:
 *
 * <pre>
 *   &lt;dir&gt;/                       ha.storage-dir/&lt;cluster-id&gt;/&lt;jobId&gt;/job-events/
 *     events.0                   the first session that wrote an event
 *     events.1                   the next one (a new leader); an old file is never reopened
 *     ...                        indices are decimal without leading zeros and have no gaps
 *     collected.1.0.0.&lt;hex&gt;     a large collected result of a finished execution, out of line
 *                                (version 2; layout in {@link CollectedDataFiles})
 * </pre>
 *
 * A session creates its file (exclusively, index = highest existing index + 1) when it
 * writes its first batch of events, so a session that records nothing leaves no file. Reading the
 * files in index order gives the job's events in the order they were recorded.
 *
 * <p>Layout of one file; all integers are big-endian two's complement:
 *
 * <pre>
 *  offset   size  field
 *  ------   ----  -----------------------------------------------------------------
 *       0      1  magic[0]  'D' (0x44)
 *       1      1  magic[1]  'F' (0x46)
 *       2      1  magic[2]  'E' (0x45)
 *       3      1  magic[3]  'V' (0x56)
 *       4      4  version   int32, 2 (written) or 1; readers reject any other version
 *       8    ...  records, back to back up to the end of the file
 *
 *  one record, starting at offset r (r = 8 for the first record):
 *   r + 0      4  payloadLength  int32, 1 .. 67,108,864 (64 MiB); 0 never occurs
 *   r + 4      4  crc32c         int32, CRC32C ({@link java.util.zip.CRC32C}) of the payload bytes
 *   r + 8      n  payload        one {@code duraflow.events.JobEvent} protobuf message (job_events.proto),
 *                                n = payloadLength bytes
 *   next record at r + 8 + n
 * </pre>
 *
 * Example: a file holding the one event {@code timestamp_ms: 1000, splits_returned {subtask: 1,
 * count: 2}} is these 25 bytes:
 *
 * <pre>
 *   44 46 45 56  00 00 00 02              magic "DFEV", version 2
 *   00 00 00 09  0e b7 4f e5              payload length 9, CRC32C of the payload
 *   08 e8 07  32 04 10 01 18 02           timestamp_ms (field 1) = 1000; splits_returned (field 6), 4 bytes:
 *                                         subtask (field 2) = 1, count (field 3) = 2
 * </pre>
 *
 * <p>Writers append whole records only, and each write call carries complete records, so a crash
 * leaves at most one incomplete record, at the end of a file ("torn tail"). The CRC does not
 * cover the length field; a length is trusted only as far as the file is long enough for it.
 * See {@link JobEventReader} for what a reader accepts.
 *
 * <p><b>Versions.</b> Version 2 adds out-of-line collected data: an {@code ExecutionFinished}
 * whose collected results exceed {@link CollectedDataFiles#OUT_OF_LINE_THRESHOLD_BYTES} refers to
 * {@code collected.*} files ({@code Collected.data_file}) instead of holding the bytes, so no
 * record nears the 64 MiB limit. Records are otherwise the same, and version 1 files (which never
 * refer to files) are still read. The version changed so that an older reader, which would take a
 * reference for an empty result, rejects the log and restarts the job instead.
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
