package io.duraflow.jobmanager.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.fs.FsPath;
import io.duraflow.jobmanager.events.JobEventReader.ReadResult;
import io.duraflow.jobmanager.events.proto.JobEvent;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JobEventReaderTest {
    @TempDir
    Path dir;

    private Path file(int index) {
        return dir.resolve(JobEventLogFormat.fileName(index));
    }

    @Test
    void everyEventTypeRoundTrips() throws IOException {
        TestEvents.writeFile(file(0), TestEvents.everyType());

        ReadResult result = JobEventReader.readAll(dir);

        assertThat(result.events()).containsExactlyElementsOf(TestEvents.everyType());
        assertThat(result.warnings()).isEmpty();
        assertThat(result.events()).extracting(JobEvent::getEventCase).doesNotHaveDuplicates()
                .hasSize(JobEvent.EventCase.values().length - 1);
    }

    @Test
    void missingOrEmptyDirectoryHasNoEvents() throws IOException {
        assertThat(JobEventReader.readAll(dir.resolve("absent")).events()).isEmpty();
        assertThat(JobEventReader.nextFileIndex(dir.resolve("absent"))).isZero();

        Files.writeString(dir.resolve("README"), "not a log file");
        Files.writeString(dir.resolve("events.01"), "not a log file either: leading zero");
        ReadResult result = JobEventReader.readAll(dir);

        assertThat(result.events()).isEmpty();
        assertThat(result.warnings()).isEmpty();
        assertThat(JobEventReader.nextFileIndex(dir)).isZero();
    }

    @Test
    void filesAreReadInIndexOrderNotNameOrder() throws IOException {
        List<JobEvent> all = IntStream.range(0, 12).mapToObj(TestEvents::numbered).toList();
        for (int i = 0; i < 12; i++) {
            TestEvents.writeFile(file(i), List.of(all.get(i)));
        }

        assertThat(JobEventReader.readAll(dir).events()).containsExactlyElementsOf(all);
        assertThat(JobEventReader.nextFileIndex(dir)).isEqualTo(12);
    }

    @Test
    void aMissingFileBetweenOthersIsCorruption() throws IOException {
        TestEvents.writeFile(file(0), List.of(TestEvents.numbered(0)));
        TestEvents.writeFile(file(2), List.of(TestEvents.numbered(2)));

        assertThatThrownBy(() -> JobEventReader.readAll(dir))
                .isInstanceOf(CorruptJobEventLogException.class)
                .hasMessage("corrupt job event log " + file(1) + " at offset 0: missing, but events.2 exists");
    }

    @Test
    void everyCutOfTheLastRecordKeepsTheEarlierEventsWithAWarning() throws IOException {
        List<JobEvent> events = TestEvents.everyType();
        long[] offsets = TestEvents.writeFile(file(0), events);
        byte[] whole = Files.readAllBytes(file(0));

        // Every length from "header only" to "one byte short": a crash may stop a write anywhere.
        for (int length = JobEventLogFormat.FILE_HEADER_BYTES; length < whole.length; length++) {
            Files.write(file(0), Arrays.copyOf(whole, length));
            int complete = completeRecords(offsets, whole.length, length);

            ReadResult result = JobEventReader.readAll(dir);

            assertThat(result.events()).as("cut at %d", length).containsExactlyElementsOf(events.subList(0, complete));
            if (complete < events.size() && length != offsets[complete]) {
                assertThat(result.warnings()).as("cut at %d", length).singleElement().asString()
                        .startsWith("ignored torn end of job event log " + file(0) + " at offset " + offsets[complete]);
            } else {
                assertThat(result.warnings()).as("cut at %d, a record boundary", length).isEmpty();
            }
        }
    }

    @Test
    void aTornTailOfAnEarlierSessionsFileDoesNotHideTheLaterFiles() throws IOException {
        Random random = new Random(383);
        for (int round = 0; round < 50; round++) {
            List<JobEvent> first = IntStream.range(0, 1 + random.nextInt(6)).mapToObj(TestEvents::numbered).toList();
            List<JobEvent> second = List.of(TestEvents.executionFinished(), TestEvents.coordinatorState());
            long[] offsets = TestEvents.writeFile(file(0), first);
            TestEvents.writeFile(file(1), second);
            long size = Files.size(file(0));
            long lastStart = offsets[offsets.length - 1];
            long cut = lastStart + 1 + random.nextInt((int) (size - lastStart - 1));  // inside the last record
            truncate(file(0), cut);

            ReadResult result = JobEventReader.readAll(dir);

            List<JobEvent> expected = new ArrayList<>(first.subList(0, first.size() - 1));
            expected.addAll(second);
            assertThat(result.events()).as("round %d, cut at %d", round, cut).containsExactlyElementsOf(expected);
            assertThat(result.warnings()).singleElement().asString().contains(file(0) + " at offset " + lastStart);
        }
    }

    @Test
    void aTornOrEmptyFileHeaderMeansNoEventsFromThatFile() throws IOException {
        Files.write(file(0), new byte[0]);
        Files.write(file(1), new byte[] {'D', 'F', 'E'});
        TestEvents.writeFile(file(2), List.of(TestEvents.numbered(2)));

        ReadResult result = JobEventReader.readAll(dir);

        assertThat(result.events()).containsExactly(TestEvents.numbered(2));
        assertThat(result.warnings()).hasSize(2);
        assertThat(result.warnings().get(0)).contains("empty job event log " + file(0));
        assertThat(result.warnings().get(1)).contains(file(1) + " at offset 0: 3 bytes of a file header");
    }

    @Test
    void zeroBytesUpToTheEndAreUnwrittenSpaceNotEvents() throws IOException {
        long[] offsets = TestEvents.writeFile(file(0), List.of(TestEvents.numbered(1), TestEvents.numbered(2)));
        long end = Files.size(file(0));
        append(file(0), new byte[4096]);
        Files.write(file(1), new byte[100]);

        ReadResult result = JobEventReader.readAll(dir);

        assertThat(offsets).hasSize(2);
        assertThat(result.events()).containsExactly(TestEvents.numbered(1), TestEvents.numbered(2));
        assertThat(result.warnings()).containsExactly(
                "ignored 4096 zero bytes at the end of job event log " + file(0) + " from offset " + end
                        + " (space that was never written)",
                "ignored 100 zero bytes at the end of job event log " + file(1) + " from offset 0"
                        + " (space that was never written)");
    }

    @Test
    void zeroBytesFollowedByDataAreCorruption() throws IOException {
        TestEvents.writeFile(file(0), List.of(TestEvents.numbered(1)));
        long end = Files.size(file(0));
        append(file(0), new byte[16]);
        append(file(0), JobEventLogFormat.encodeRecord(TestEvents.numbered(2)));

        assertThatThrownBy(() -> JobEventReader.readAll(dir))
                .isInstanceOf(CorruptJobEventLogException.class)
                .hasMessage("corrupt job event log " + file(0) + " at offset " + end
                        + ": invalid record length 0 (expected 1 to 67108864)");
    }

    @Test
    void aChecksumMismatchInTheMiddleNamesFileAndOffset() throws IOException {
        TestEvents.writeFile(file(0), List.of(TestEvents.numbered(0)));
        long[] offsets = TestEvents.writeFile(file(1), TestEvents.everyType());
        int victim = 2;
        flipByte(file(1), offsets[victim] + JobEventLogFormat.RECORD_HEADER_BYTES + 3);

        assertThatThrownBy(() -> JobEventReader.readAll(dir))
                .isInstanceOf(CorruptJobEventLogException.class)
                .hasMessageStartingWith("corrupt job event log " + file(1) + " at offset " + offsets[victim]
                        + ": checksum mismatch")
                .satisfies(e -> {
                    CorruptJobEventLogException corrupt = (CorruptJobEventLogException) e;
                    assertThat(corrupt.file()).isEqualTo(FsPath.of(file(1)));
                    assertThat(corrupt.offset()).isEqualTo(offsets[victim]).isGreaterThan(8);
                });
    }

    @Test
    void aChecksumMismatchInTheLastCompleteRecordIsCorruptionNotATornTail() throws IOException {
        long[] offsets = TestEvents.writeFile(file(0), List.of(TestEvents.numbered(1), TestEvents.numbered(2)));
        flipByte(file(0), Files.size(file(0)) - 1);

        assertThatThrownBy(() -> JobEventReader.readAll(dir))
                .isInstanceOf(CorruptJobEventLogException.class)
                .hasMessageStartingWith("corrupt job event log " + file(0) + " at offset " + offsets[1]
                        + ": checksum mismatch");
    }

    @Test
    void impossibleLengthsAreCorruption() throws IOException {
        for (int length : new int[] {-1, Integer.MIN_VALUE, JobEventLogFormat.MAX_PAYLOAD_BYTES + 1}) {
            long[] offsets = TestEvents.writeFile(file(0), List.of(TestEvents.numbered(1), TestEvents.numbered(2),
                    TestEvents.numbered(3)));
            overwrite(file(0), offsets[1], ByteBuffer.allocate(4).putInt(length).array());

            assertThatThrownBy(() -> JobEventReader.readAll(dir))
                    .isInstanceOf(CorruptJobEventLogException.class)
                    .hasMessage("corrupt job event log " + file(0) + " at offset " + offsets[1]
                            + ": invalid record length " + length + " (expected 1 to 67108864)");
        }
    }

    @Test
    void badMagicOrVersionIsCorruption() throws IOException {
        TestEvents.writeFile(file(0), List.of(TestEvents.numbered(1)));
        overwrite(file(0), 0, new byte[] {'D', 'F', 'E', 'X'});

        assertThatThrownBy(() -> JobEventReader.readAll(dir))
                .isInstanceOf(CorruptJobEventLogException.class)
                .hasMessage("corrupt job event log " + file(0)
                        + " at offset 0: bad magic 44464558, expected 44464556 ('DFEV')");

        TestEvents.writeFile(file(0), List.of(TestEvents.numbered(1)));
        overwrite(file(0), 4, new byte[] {0, 0, 0, 3});

        assertThatThrownBy(() -> JobEventReader.readAll(dir))
                .isInstanceOf(CorruptJobEventLogException.class)
                .hasMessage("corrupt job event log " + file(0)
                        + " at offset 4: unsupported format version 3; this version of Duraflow reads versions 1 to 2");

        Files.writeString(file(0), "{\"not\": \"a log\"}");
        assertThatThrownBy(() -> JobEventReader.readAll(dir))
                .isInstanceOf(CorruptJobEventLogException.class)
                .hasMessageContaining("at offset 0: bad magic");
    }

    @Test
    void aRecordWithAValidChecksumButNoEventIsRejected() throws IOException {
        TestEvents.writeFile(file(0), List.of(TestEvents.numbered(1)));
        long offset = Files.size(file(0));
        // Bytes that are not a protobuf message (field 0 is invalid), and an event with no type set.
        append(file(0), record(new byte[] {0, 0, 0}));

        assertThatThrownBy(() -> JobEventReader.readAll(dir))
                .isInstanceOf(CorruptJobEventLogException.class)
                .hasMessageStartingWith("corrupt job event log " + file(0) + " at offset " + offset
                        + ": unparsable event");

        TestEvents.writeFile(file(0), List.of(TestEvents.numbered(1)));
        append(file(0), record(JobEvent.newBuilder().setTimestampMs(5).build().toByteArray()));
        assertThatThrownBy(() -> JobEventReader.readAll(dir))
                .isInstanceOf(CorruptJobEventLogException.class)
                .hasMessage("corrupt job event log " + file(0) + " at offset " + offset
                        + ": event of an unknown type (written by a newer version of Duraflow?)");
    }

    @Test
    void theDocumentedExampleFileIsByteExact() throws IOException {
        JobEvent example = JobEvent.newBuilder().setTimestampMs(1000)
                .setSplitsReturned(io.duraflow.jobmanager.events.proto.SplitsReturned.newBuilder()
                        .setSubtask(1).setCount(2))
                .build();
        TestEvents.writeFile(file(0), List.of(example));

        assertThat(HexFormat.of().formatHex(Files.readAllBytes(file(0))))
                .isEqualTo("44464556" + "00000002" + "00000009" + "0eb74fe5" + "08e807" + "320410011802");
        assertThat(JobEventReader.readAll(dir).events()).containsExactly(example);
    }

    @Test
    void aVersionOneFileIsStillRead() throws IOException {
        TestEvents.writeFile(file(0), TestEvents.everyType());
        overwrite(file(0), 4, new byte[] {0, 0, 0, 1});
        TestEvents.writeFile(file(1), List.of(TestEvents.numbered(1)));
        truncate(file(1), 6);

        ReadResult result = JobEventReader.readAll(dir);

        assertThat(result.events()).containsExactlyElementsOf(TestEvents.everyType());
        assertThat(result.warnings()).singleElement().asString()
                .contains("torn end of job event log " + file(1) + " at offset 0: 6 bytes of a file header");
    }

    /** How many records lie wholly within the first {@code length} bytes. */
    private static int completeRecords(long[] offsets, long fileSize, int length) {
        int complete = 0;
        for (int i = 0; i < offsets.length; i++) {
            long end = i + 1 < offsets.length ? offsets[i + 1] : fileSize;
            if (end <= length) {
                complete++;
            }
        }
        return complete;
    }

    /** A record with a correct header for arbitrary payload bytes. */
    private static byte[] record(byte[] payload) {
        return ByteBuffer.allocate(8 + payload.length).putInt(payload.length)
                .putInt(JobEventLogFormat.crc32c(payload, 0, payload.length)).put(payload).array();
    }

    private static void truncate(Path file, long size) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.truncate(size);
        }
    }

    private static void append(Path file, byte[] bytes) throws IOException {
        Files.write(file, bytes, StandardOpenOption.APPEND);
    }

    private static void overwrite(Path file, long offset, byte[] bytes) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.write(ByteBuffer.wrap(bytes), offset);
        }
    }

    private static void flipByte(Path file, long offset) throws IOException {
        byte[] all = Files.readAllBytes(file);
        all[(int) offset] ^= 0x40;
        Files.write(file, all);
    }
}
