package io.duraflow.jobmanager.events;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.google.protobuf.ByteString;
import io.duraflow.fs.FsOutputStream;
import io.duraflow.fs.FsPath;
import io.duraflow.fs.LocalFileSystem;
import io.duraflow.fs.WriteMode;
import io.duraflow.mailbox.ManualMailbox;
import io.duraflow.jobmanager.events.JobEventReader.ReadResult;
import io.duraflow.jobmanager.events.proto.Collected;
import io.duraflow.jobmanager.events.proto.CollectedFile;
import io.duraflow.jobmanager.events.proto.ExecutionFinished;
import io.duraflow.jobmanager.events.proto.JobEvent;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/** Collected results out of line: written before the record that refers to them, read back, and never trusted blindly. */
class CollectedDataFilesTest {
    private static final Duration INTERVAL = Duration.ofSeconds(1);
    /** Lowered from 1 MiB, so that a few KiB go out of line. */
    private static final int THRESHOLD = 1024;

    @TempDir
    Path dir;
    private final ManualMailbox scheduler = new ManualMailbox();
    /** Every create, write and sync of the writer's files, in order: "sync events.0". */
    private final List<String> operations = new CopyOnWriteArrayList<>();
    private final ListAppender<ILoggingEvent> log = new ListAppender<>();
    private final Logger writerLogger = (Logger) LoggerFactory.getLogger(JobEventWriter.class);

    @BeforeEach
    void setUp() {
        log.start();
        writerLogger.addAppender(log);
    }

    @AfterEach
    void tearDown() {
        writerLogger.detachAppender(log);
    }

    private JobEventWriter writer(JobEventWriter.FileOpener opener) {
        return new JobEventWriter(LocalFileSystem.INSTANCE, FsPath.of(dir), 1 << 20, INTERVAL, scheduler, opener,
                THRESHOLD);
    }

    private JobEventWriter writer() {
        return writer(file -> new Recording(file, LocalFileSystem.INSTANCE.create(file, WriteMode.EXCLUSIVE)));
    }

    /** v1/0#0 finished with a large result "out", a small one "tiny" and an empty one. */
    static JobEvent largeFinish(int bytes) {
        byte[] data = new byte[bytes];
        new Random(bytes).nextBytes(data);
        return JobEvent.newBuilder().setTimestampMs(TestEvents.T0).setExecutionFinished(ExecutionFinished.newBuilder()
                .setVertex(1).setSubtask(0).setAttempt(0).setTmId("tm-1").setTmAddress("127.0.0.1:4567")
                .addCollected(Collected.newBuilder().setName("out").setSubtask(0).setRecords(7)
                        .setData(ByteString.copyFrom(data)))
                .addCollected(Collected.newBuilder().setName("tiny").setSubtask(0).setRecords(1)
                        .setData(ByteString.copyFrom(new byte[] {1, 2, 3})))
                .addCollected(Collected.newBuilder().setName("none").setSubtask(0)))
                .build();
    }

    private void write(JobEventWriter writer, JobEvent... events) {
        for (JobEvent event : events) {
            writer.append(event);
        }
        writer.closeAsync();
        scheduler.runDue();
    }

    private List<Path> collectedFiles() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.getFileName().toString().startsWith(CollectedDataFiles.FILE_PREFIX)).sorted()
                    .toList();
        }
    }

    /** The out-of-line file of the finish's collected result {@code name}, from its reference in the log. */
    private Path fileOf(String name) throws IOException {
        JobEvent recorded = JobEventReader.readAsRecorded(LocalFileSystem.INSTANCE, FsPath.of(dir)).events().stream()
                .filter(JobEvent::hasExecutionFinished).findFirst().orElseThrow();
        return dir.resolve(recorded.getExecutionFinished().getCollectedList().stream()
                .filter(c -> c.getName().equals(name)).findFirst().orElseThrow().getDataFile().getName());
    }

    @Test
    void aLargeCollectedResultGoesOutOfLineAndReadsBackWhole() throws IOException {
        JobEvent finish = largeFinish(5000);
        JobEventWriter writer = writer();
        write(writer, TestEvents.vertexInitialized(), finish, TestEvents.numbered(1));

        assertThat(writer.disabled()).isFalse();
        assertThat(collectedFiles()).as("every non-empty result of the finish").hasSize(2)
                .allSatisfy(f -> assertThat(f.getFileName().toString()).matches("collected\\.1\\.0\\.0\\.[0-9a-f]{16}"));
        ReadResult recorded = JobEventReader.readAsRecorded(LocalFileSystem.INSTANCE, FsPath.of(dir));
        assertThat(recorded.events().get(1).getExecutionFinished().getCollectedList())
                .extracting(Collected::getName, c -> c.getData().size(), c -> c.getDataFile().getLength())
                .containsExactly(org.assertj.core.groups.Tuple.tuple("out", 0, 5000L),
                        org.assertj.core.groups.Tuple.tuple("tiny", 0, 3L),
                        org.assertj.core.groups.Tuple.tuple("none", 0, 0L));
        assertThat(Files.size(dir.resolve("events.0"))).as("the record holds references only").isLessThan(400);

        ReadResult read = JobEventReader.readAll(dir);
        assertThat(read.events()).containsExactly(TestEvents.vertexInitialized(), finish, TestEvents.numbered(1));
        assertThat(read.warnings()).isEmpty();
        assertThat(writer.writtenBytes()).isEqualTo(Files.size(dir.resolve("events.0"))
                + (CollectedDataFiles.HEADER_BYTES + 5000) + (CollectedDataFiles.HEADER_BYTES + 3));
    }

    @Test
    void smallCollectedResultsStayInTheRecord() throws IOException {
        write(writer(), TestEvents.executionFinished(), largeFinish(THRESHOLD - 3));

        assertThat(collectedFiles()).isEmpty();
        assertThat(JobEventReader.readAsRecorded(LocalFileSystem.INSTANCE, FsPath.of(dir)).events())
                .containsExactly(TestEvents.executionFinished(), largeFinish(THRESHOLD - 3));
    }

    @Test
    void theFilesAreSyncedBeforeTheRecordThatRefersToThemIsWritten() throws IOException {
        JobEventWriter writer = writer();
        writer.append(TestEvents.numbered(1));
        writer.flush();
        scheduler.runDue();
        operations.clear();

        write(writer, largeFinish(5000));

        List<String> created = operations.stream().filter(o -> o.startsWith("create ")).map(o -> o.substring(7))
                .toList();
        assertThat(created).containsExactlyInAnyOrderElementsOf(
                collectedFiles().stream().map(f -> f.getFileName().toString()).toList()).hasSize(2);
        List<String> expected = new ArrayList<>();
        for (String name : created) {
            expected.addAll(List.of("create " + name, "write " + name, "sync " + name));
        }
        expected.addAll(List.of("write events.0", "sync events.0"));
        assertThat(operations.stream().distinct().toList()).as("one file after the other, each synced, then the record")
                .containsExactlyElementsOf(expected);
        assertThat(operations.subList(operations.indexOf("write events.0"), operations.size()))
                .containsExactly("write events.0", "sync events.0");
    }

    @Test
    void aMissingFileLeavesThatFinishOutSoTheTaskRunsAgain() throws IOException {
        write(writer(), TestEvents.vertexInitialized(), largeFinish(5000), TestEvents.numbered(1));
        Path file = fileOf("out");
        Files.delete(file);

        ReadResult read = JobEventReader.readAll(dir);

        assertThat(read.events()).containsExactly(TestEvents.vertexInitialized(), TestEvents.numbered(1));
        assertThat(read.warnings()).containsExactly("ignored the finish of v1/0#0, so that task runs again: collected"
                + " data file " + file + " is missing");
    }

    @Test
    void aTornFileIsNotUsed() throws IOException {
        write(writer(), largeFinish(5000));
        Path file = fileOf("out");
        truncate(file, 3000);

        ReadResult read = JobEventReader.readAll(dir);

        assertThat(read.events()).isEmpty();
        assertThat(read.warnings()).containsExactly("ignored the finish of v1/0#0, so that task runs again: corrupt"
                + " job event log " + file + " at offset 3000: collected data file: torn: 2980 of 5000 data bytes present");
    }

    @Test
    void aCorruptFileIsNotUsed() throws IOException {
        write(writer(), largeFinish(5000));
        Path file = fileOf("out");
        byte[] bytes = Files.readAllBytes(file);
        bytes[4000] ^= 0x10;
        Files.write(file, bytes);

        assertThat(JobEventReader.readAll(dir).warnings()).singleElement().asString()
                .startsWith("ignored the finish of v1/0#0, so that task runs again: corrupt job event log " + file
                        + " at offset 20: collected data file: checksum mismatch: the header says");

        Files.write(file, new byte[] {'D', 'F', 'C', 'D', 0, 0, 0, 9});
        assertThat(JobEventReader.readAll(dir).warnings()).singleElement().asString()
                .endsWith(file + " at offset 8: collected data file: torn header (8 of 20 bytes)");

        Files.write(file, "{\"something\": \"else\"}".getBytes());
        assertThat(JobEventReader.readAll(dir).warnings()).singleElement().asString()
                .endsWith(file + " at offset 0: collected data file: bad magic 7b22736f, expected 44464344 ('DFCD')");

        bytes[4000] ^= 0x10;
        Files.write(file, bytes);
        Files.write(file, new byte[] {9}, StandardOpenOption.APPEND);
        assertThat(JobEventReader.readAll(dir).warnings()).singleElement().asString()
                .endsWith(file + " at offset 5020: collected data file: longer than the 5020 bytes its header says");
    }

    @Test
    void aFileWithOtherDataThanItsEventDescribesIsNotUsed() throws IOException {
        write(writer(), largeFinish(5000));
        Path file = fileOf("out");
        // A well-formed file, but of another result (e.g. a name reused by a broken writer).
        byte[] other = new byte[5000];
        Files.write(file, concat(CollectedDataFiles.header(other.length, CollectedDataFiles.crc32c(other)), other));

        ReadResult read = JobEventReader.readAll(dir);

        assertThat(read.events()).isEmpty();
        assertThat(read.warnings()).singleElement().asString().contains(file + " at offset 8: collected data file:"
                + " the header says 5000 bytes with CRC32C");
    }

    @Test
    void finishesOfAnAbandonedRunAreNotRead() throws IOException {
        write(writer(), largeFinish(5000), TestEvents.runStarted(), TestEvents.numbered(1));
        for (Path file : collectedFiles()) {
            Files.delete(file);
        }

        ReadResult read = JobEventReader.readAll(dir);

        assertThat(read.warnings()).as("replay ignores events before RunStarted: their files do not matter").isEmpty();
        assertThat(read.events()).hasSize(3);
        assertThat(read.events().get(0).getExecutionFinished().getCollected(0).hasDataFile()).isTrue();
    }

    @Test
    void aFailedFileWriteStopsRecordingWithAWarningAndNoRecordRefersToIt() throws IOException {
        JobEventWriter writer = writer(file -> file.name().startsWith(CollectedDataFiles.FILE_PREFIX)
                ? InterceptingStream.createNew(file, 2) : LocalFileSystem.INSTANCE.create(file, WriteMode.EXCLUSIVE));
        writer.append(TestEvents.numbered(1));
        writer.flush();
        scheduler.runDue();

        write(writer, largeFinish(200_000), TestEvents.numbered(2));

        assertThat(writer.disabled()).isTrue();
        assertThat(writer.disabledCause()).isEqualTo("No space left on device");
        assertThat(writer.droppedEvents()).isEqualTo(2);
        assertThat(JobEventReader.readAll(dir).events()).containsExactly(TestEvents.numbered(1));
        assertThat(collectedFiles()).as("the partly written file is deleted").isEmpty();
        assertThat(log.list).filteredOn(e -> e.getLevel() == Level.WARN).singleElement()
                .extracting(ILoggingEvent::getFormattedMessage).asString()
                .matches("Stopped recording job events in \\Q" + dir + "\\E: cannot write \\Q" + dir
                        + "/collected.1.0.0.\\E[0-9a-f]{16}: java.io.IOException: No space left on device. Batch job"
                        + " recovery is off for this job from here on: .*");
    }

    @Test
    void aCollectedResultAboveTheLimitStopsRecordingWithAWarning() {
        // 129 MiB as a rope of one 1 MiB piece: nothing that large is allocated.
        ByteString mebibyte = ByteString.copyFrom(new byte[1 << 20]);
        ByteString huge = ByteString.EMPTY;
        for (int i = 0; i < 129; i++) {
            huge = huge.concat(mebibyte);
        }
        JobEvent finish = JobEvent.newBuilder().setExecutionFinished(ExecutionFinished.newBuilder().setVertex(1)
                .addCollected(Collected.newBuilder().setName("out").setData(huge))).build();
        JobEventWriter writer = writer();

        write(writer, TestEvents.numbered(1), finish);

        assertThat(writer.disabledCause()).isEqualTo("collected result 'out' of 135266304 bytes is larger than the"
                + " 134217728 bytes batch job recovery stores (collect.max-bytes is at most that)");
        assertThat(log.list).filteredOn(e -> e.getLevel() == Level.WARN).singleElement()
                .extracting(ILoggingEvent::getFormattedMessage).asString()
                .contains("cannot record an event").contains("Batch job recovery is off for this job");
    }

    @Test
    void theDocumentedFileIsByteExact() throws IOException {
        ByteString data = ByteString.copyFrom(new byte[] {1, 2, 3});
        CollectedDataFiles.Blob blob = new CollectedDataFiles.Blob("collected.1.0.0.00000000000000ff", data,
                CollectedDataFiles.crc32c(data));

        long written = CollectedDataFiles.write(LocalFileSystem.INSTANCE, FsPath.of(dir),
                file -> LocalFileSystem.INSTANCE.create(file, WriteMode.EXCLUSIVE), blob);

        Path file = dir.resolve(blob.name());
        assertThat(written).isEqualTo(23);
        assertThat(HexFormat.of().formatHex(Files.readAllBytes(file)))
                .isEqualTo("44464344" + "00000001" + "0000000000000003" + "f130f21e" + "010203");
        CollectedFile reference = CollectedFile.newBuilder().setName(blob.name()).setLength(3)
                .setCrc32C(blob.crc32c()).build();
        assertThat(CollectedDataFiles.read(LocalFileSystem.INSTANCE, FsPath.of(file), reference)).isEqualTo(data);
    }

    private static byte[] concat(byte[] a, byte[] b) {
        return ByteBuffer.allocate(a.length + b.length).put(a).put(b).array();
    }

    private static void truncate(Path file, long size) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.truncate(size);
        }
    }

    /** A local file that notes its creation, write calls and syncs in {@link #operations}. */
    private final class Recording extends FsOutputStream {
        private final String name;
        private final FsOutputStream delegate;

        Recording(FsPath file, FsOutputStream delegate) {
            this.name = file.name();
            this.delegate = delegate;
            operations.add("create " + name);
        }

        @Override
        public void write(byte[] bytes, int offset, int length) throws IOException {
            delegate.write(bytes, offset, length);
            operations.add("write " + name);
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public long position() throws IOException {
            return delegate.position();
        }

        @Override
        public void sync() throws IOException {
            delegate.sync();
            operations.add("sync " + name);
        }

        @Override
        public void close() throws IOException {
            delegate.close();
        }
    }
}
