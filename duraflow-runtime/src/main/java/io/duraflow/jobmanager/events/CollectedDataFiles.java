package io.duraflow.jobmanager.events;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnsafeByteOperations;
import io.duraflow.config.ClusterOptions;
import io.duraflow.fs.FileSystem;
import io.duraflow.fs.FsOutputStream;
import io.duraflow.fs.FsPath;
import io.duraflow.jobmanager.events.proto.Collected;
import io.duraflow.jobmanager.events.proto.CollectedFile;
import io.duraflow.jobmanager.events.proto.ExecutionFinished;
import io.duraflow.jobmanager.events.proto.JobEvent;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.function.LongSupplier;
import java.util.zip.CRC32C;

/**
 * Collected results stored out of line, next to the log files, when a finished execution's
 * collected data is larger than {@link #OUT_OF_LINE_THRESHOLD_BYTES}; written and synced before the
 * record that refers to them. Format and reading rules: see
 * docs/design/job-event-log.md#collecteddatafiles.
 */
final class CollectedDataFiles {
    static final byte[] MAGIC = {'D', 'F', 'C', 'D'};
    static final int VERSION = 1;
    static final int HEADER_BYTES = 20;
    /** An execution whose collected data together exceeds this stores all of it out of line. */
    static final int OUT_OF_LINE_THRESHOLD_BYTES = 1 << 20;
    /** Largest data a file holds: no collected result is larger ({@code collect.max-bytes} is capped). */
    static final long MAX_DATA_BYTES = ClusterOptions.COLLECT_MAX_BYTES_LIMIT.bytes();
    static final String FILE_PREFIX = "collected.";
    private static final int WRITE_CHUNK_BYTES = 1 << 16;
    private static final HexFormat HEX = HexFormat.of();

    private CollectedDataFiles() {
    }

    /** Collected data to write to its own file before the record that refers to it. */
    record Blob(String name, ByteString data, int crc32c) {
    }

    /** An event as it goes into its record, and the files it refers to. */
    record Split(JobEvent event, List<Blob> blobs) {
        Split {
            blobs = List.copyOf(blobs);
        }
    }

    /**
     * The event with its collected data out of line if an {@code ExecutionFinished} collected more
     * than {@code thresholdBytes}; else the event as it is. The data is not copied.
     *
     * @throws IllegalArgumentException if one collected result is larger than {@link #MAX_DATA_BYTES}
     */
    static Split externalize(JobEvent event, long thresholdBytes, LongSupplier random) {
        if (!event.hasExecutionFinished()) {
            return new Split(event, List.of());
        }
        ExecutionFinished finished = event.getExecutionFinished();
        long total = 0;
        for (Collected collected : finished.getCollectedList()) {
            total += collected.getData().size();
        }
        if (total <= thresholdBytes) {
            return new Split(event, List.of());
        }
        ExecutionFinished.Builder referring = finished.toBuilder().clearCollected();
        List<Blob> blobs = new ArrayList<>();
        for (Collected collected : finished.getCollectedList()) {
            ByteString data = collected.getData();
            if (data.isEmpty()) {
                referring.addCollected(collected);
                continue;
            }
            if (data.size() > MAX_DATA_BYTES) {
                throw new IllegalArgumentException("collected result '" + collected.getName() + "' of "
                        + data.size() + " bytes is larger than the " + MAX_DATA_BYTES + " bytes batch job recovery"
                        + " stores (" + ClusterOptions.COLLECT_MAX_BYTES.key() + " is at most that)");
            }
            String name = String.format(Locale.ROOT, "%s%d.%d.%d.%016x", FILE_PREFIX, finished.getVertex(),
                    finished.getSubtask(), finished.getAttempt(), random.getAsLong());
            Blob blob = new Blob(name, data, crc32c(data));
            blobs.add(blob);
            referring.addCollected(collected.toBuilder().clearData().setDataFile(CollectedFile.newBuilder()
                    .setName(name).setLength(data.size()).setCrc32C(blob.crc32c())));
        }
        return new Split(event.toBuilder().setExecutionFinished(referring).build(), blobs);
    }

    /** The header of a file holding {@code length} bytes with this checksum. */
    static byte[] header(long length, int crc32c) {
        return ByteBuffer.allocate(HEADER_BYTES).put(MAGIC).putInt(VERSION).putLong(length).putInt(crc32c).array();
    }

    /**
     * Writes and syncs a blob's file, created exclusively by {@code opener}; a partly written file is
     * deleted (best effort).
     *
     * @return the bytes written
     */
    static long write(FileSystem fileSystem, FsPath dir, JobEventWriter.FileOpener opener, Blob blob)
            throws IOException {
        FsPath file = dir.resolve(blob.name());
        FsOutputStream out = opener.createNew(file);
        try (out) {
            out.write(header(blob.data().size(), blob.crc32c()));
            // Through a small buffer: ByteString.writeTo(OutputStream) would copy the data whole.
            byte[] chunk = new byte[WRITE_CHUNK_BYTES];
            for (ByteBuffer data : blob.data().asReadOnlyByteBufferList()) {
                while (data.hasRemaining()) {
                    int n = Math.min(chunk.length, data.remaining());
                    data.get(chunk, 0, n);
                    out.write(chunk, 0, n);
                }
            }
            out.sync();
        } catch (IOException | RuntimeException e) {
            try {
                fileSystem.delete(file);
            } catch (IOException | RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
        return HEADER_BYTES + (long) blob.data().size();
    }

    /**
     * The events with the data of the current run's out-of-line collected results read back in;
     * a finish whose file cannot be used is dropped, with a warning.
     */
    static JobEventReader.ReadResult resolve(FileSystem fileSystem, FsPath dir, JobEventReader.ReadResult read) {
        List<JobEvent> events = read.events();
        int first = currentRunStart(events);
        List<JobEvent> resolved = new ArrayList<>(events.subList(0, first));
        List<String> warnings = new ArrayList<>(read.warnings());
        for (JobEvent event : events.subList(first, events.size())) {
            if (!refersToFiles(event)) {
                resolved.add(event);
                continue;
            }
            ExecutionFinished finished = event.getExecutionFinished();
            ExecutionFinished.Builder inline = finished.toBuilder().clearCollected();
            String problem = null;
            for (Collected collected : finished.getCollectedList()) {
                if (!collected.hasDataFile()) {
                    inline.addCollected(collected);
                    continue;
                }
                FsPath file = dir.resolve(collected.getDataFile().getName());
                try {
                    inline.addCollected(collected.toBuilder().clearDataFile()
                            .setData(read(fileSystem, file, collected.getDataFile())));
                } catch (NoSuchFileException e) {
                    problem = "collected data file " + file + " is missing";
                } catch (IOException e) {
                    problem = e.getMessage();
                }
                if (problem != null) {
                    break;
                }
            }
            if (problem == null) {
                resolved.add(event.toBuilder().setExecutionFinished(inline).build());
            } else {
                warnings.add("ignored the finish of v" + finished.getVertex() + "/" + finished.getSubtask() + "#"
                        + finished.getAttempt() + ", so that task runs again: " + problem);
            }
        }
        return new JobEventReader.ReadResult(resolved, warnings);
    }

    /**
     * The data of a collected data file, checked against its header and the record's reference.
     *
     * @throws CorruptJobEventLogException naming the file if it is torn, corrupt or other data
     * @throws NoSuchFileException if it is missing
     */
    static ByteString read(FileSystem fileSystem, FsPath file, CollectedFile reference) throws IOException {
        try (InputStream in = fileSystem.open(file)) {
            byte[] header = in.readNBytes(HEADER_BYTES);
            if (header.length < MAGIC.length || !Arrays.equals(header, 0, MAGIC.length, MAGIC, 0, MAGIC.length)) {
                throw corrupt(file, 0, header.length < MAGIC.length ? "torn header (" + header.length + " bytes)"
                        : "bad magic " + HEX.formatHex(header, 0, MAGIC.length) + ", expected 44464344 ('DFCD')");
            }
            if (header.length < HEADER_BYTES) {
                throw corrupt(file, header.length, "torn header (" + header.length + " of " + HEADER_BYTES + " bytes)");
            }
            ByteBuffer fields = ByteBuffer.wrap(header, MAGIC.length, HEADER_BYTES - MAGIC.length);
            int version = fields.getInt();
            long length = fields.getLong();
            int crc = fields.getInt();
            if (version != VERSION) {
                throw corrupt(file, 4, "unsupported version " + version + "; this version of Duraflow reads version "
                        + VERSION);
            }
            if (length < 0 || length > MAX_DATA_BYTES || length != reference.getLength()
                    || crc != reference.getCrc32C()) {
                throw corrupt(file, 8, String.format(Locale.ROOT, "the header says %d bytes with CRC32C %08x, the job"
                        + " event says %d bytes with %08x", length, crc, reference.getLength(), reference.getCrc32C()));
            }
            byte[] data = in.readNBytes((int) length);
            if (data.length < length) {
                throw corrupt(file, HEADER_BYTES + (long) data.length, "torn: " + data.length + " of " + length
                        + " data bytes present");
            }
            if (in.read() >= 0) {
                throw corrupt(file, HEADER_BYTES + length, "longer than the " + (HEADER_BYTES + length)
                        + " bytes its header says");
            }
            int actual = crc32c(data);
            if (actual != crc) {
                throw corrupt(file, HEADER_BYTES, String.format(Locale.ROOT,
                        "checksum mismatch: the header says %08x but the %d data bytes hash to %08x", crc, length,
                        actual));
            }
            // The array is never changed after this point, so the ByteString may share it.
            return UnsafeByteOperations.unsafeWrap(data);
        }
    }

    static boolean refersToFiles(JobEvent event) {
        return event.hasExecutionFinished()
                && event.getExecutionFinished().getCollectedList().stream().anyMatch(Collected::hasDataFile);
    }

    /** The index of the first event after the last {@code RunStarted}, else 0. */
    private static int currentRunStart(List<JobEvent> events) {
        for (int i = events.size() - 1; i >= 0; i--) {
            if (events.get(i).hasRunStarted()) {
                return i + 1;
            }
        }
        return 0;
    }

    private static CorruptJobEventLogException corrupt(FsPath file, long offset, String reason) {
        return new CorruptJobEventLogException(file, offset, "collected data file: " + reason);
    }

    static int crc32c(ByteString data) {
        CRC32C crc = new CRC32C();
        for (ByteBuffer chunk : data.asReadOnlyByteBufferList()) {
            crc.update(chunk);
        }
        return (int) crc.getValue();
    }

    static int crc32c(byte[] data) {
        return JobEventLogFormat.crc32c(data, 0, data.length);
    }
}
