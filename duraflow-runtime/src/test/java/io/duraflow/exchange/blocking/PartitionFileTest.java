package io.duraflow.exchange.blocking;

import io.duraflow.exchange.PartitionSummary;

import io.duraflow.exchange.FrameIterator;
import io.duraflow.exchange.Frames;
import io.duraflow.exchange.RecordIterator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.api.types.DataReader;
import io.duraflow.api.types.Types;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PartitionFileTest {
    @TempDir
    Path dir;

    private Path data() {
        return dir.resolve("p.data");
    }

    private Path index() {
        return dir.resolve("p.index");
    }

    @Test
    void roundTripsRandomRecordsOverManySubpartitionsAndFrames() throws IOException {
        int subpartitions = 37;
        Random random = new Random(42);
        List<List<byte[]>> expected = emptyLists(subpartitions);
        PartitionSummary summary;
        try (PartitionFileWriter writer = new PartitionFileWriter(data(), index(), subpartitions, 1000)) {
            for (int i = 0; i < 20_000; i++) {
                int sub = random.nextInt(subpartitions);
                if (sub % 5 == 0) {
                    continue; // leave some subpartitions empty
                }
                byte[] record = new byte[random.nextInt(300)];
                random.nextBytes(record);
                expected.get(sub).add(record);
                // Write from the middle of a larger array to check offset handling.
                byte[] padded = new byte[record.length + 7];
                System.arraycopy(record, 0, padded, 3, record.length);
                writer.write(sub, padded, 3, record.length);
            }
            summary = writer.finish();
        }
        assertThat(summary.dataFileBytes()).isEqualTo(Files.size(data()));
        assertThat(summary.totalRecords()).isEqualTo(expected.stream().mapToInt(List::size).sum());
        try (PartitionFileReader reader = PartitionFileReader.open(data(), index())) {
            assertThat(reader.subpartitionCount()).isEqualTo(subpartitions);
            for (int sub = 0; sub < subpartitions; sub++) {
                assertThat(reader.records(sub)).isEqualTo(expected.get(sub).size()).isEqualTo(summary.records(sub));
                assertThat(reader.bytes(sub)).isEqualTo(summary.bytes(sub));
            }
            assertThat(reader.frameCount(1)).as("small write buffer makes many frames").isGreaterThan(10);
            List<List<byte[]>> actual = readAll(reader.frames(0, subpartitions), 64 * 1024);
            assertSameRecords(actual, expected);
        }
    }

    @Test
    void chunksHoldWholeFramesWithinTheLimit() throws IOException {
        Random random = new Random(7);
        List<List<byte[]>> expected = emptyLists(4);
        try (PartitionFileWriter writer = new PartitionFileWriter(data(), index(), 4, 500)) {
            for (int i = 0; i < 5000; i++) {
                byte[] record = new byte[random.nextInt(100)];
                random.nextBytes(record);
                expected.get(i % 4).add(record);
                writer.write(i % 4, record, 0, record.length);
            }
            writer.finish();
        }
        try (PartitionFileReader reader = PartitionFileReader.open(data(), index())) {
            FrameCursor cursor = reader.frames(0, 4);
            List<List<byte[]>> actual = emptyLists(4);
            int lastSubpartition = 0;
            while (cursor.hasNext()) {
                byte[] chunk = cursor.nextChunk(2000);
                FrameIterator frames = Frames.iterate(chunk, "test");
                int frameCount = 0;
                while (frames.next()) {
                    frameCount++;
                    assertThat(frames.subpartition()).isGreaterThanOrEqualTo(lastSubpartition);
                    lastSubpartition = frames.subpartition();
                    collect(frames, actual);
                }
                assertThat(chunk.length <= 2000 || frameCount == 1).as("chunk of %s bytes", chunk.length).isTrue();
            }
            assertSameRecords(actual, expected);
            assertThat(cursor.nextChunk(2000)).isNull();
        }
    }

    @Test
    void emptyPartitionHasNoFrames() throws IOException {
        PartitionSummary summary;
        try (PartitionFileWriter writer = new PartitionFileWriter(data(), index(), 3, 1024)) {
            summary = writer.finish();
        }
        assertThat(summary.totalBytes()).isZero();
        assertThat(summary.dataFileBytes()).isEqualTo(8);
        try (PartitionFileReader reader = PartitionFileReader.open(data(), index())) {
            assertThat(reader.records(2)).isZero();
            FrameCursor cursor = reader.frames(0, 3);
            assertThat(cursor.hasNext()).isFalse();
            assertThat(cursor.nextChunk(1 << 20)).as("exhausted cursor returns null").isNull();
            assertThat(cursor.nextFrame()).isNull();
        }
    }

    @Test
    void recordLargerThanOneMibGetsAFrameOfItsOwnAndBigBuffersSplit() throws IOException {
        byte[] big = new byte[3 * 1024 * 1024 + 17];
        new Random(1).nextBytes(big);
        List<List<byte[]>> expected = emptyLists(2);
        try (PartitionFileWriter writer = new PartitionFileWriter(data(), index(), 2, 16 * 1024 * 1024)) {
            for (int i = 0; i < 30_000; i++) { // about 3 MiB of small records in one buffer
                byte[] small = ("record-" + i + "-".repeat(90)).getBytes();
                expected.get(0).add(small);
                writer.write(0, small, 0, small.length);
                if (i == 15_000) {
                    expected.get(0).add(big);
                    writer.write(0, big, 0, big.length);
                }
            }
            expected.get(1).add(big);
            writer.write(1, big, 0, big.length);
            writer.finish();
        }
        try (PartitionFileReader reader = PartitionFileReader.open(data(), index())) {
            assertThat(reader.frameCount(0)).isGreaterThanOrEqualTo(5);
            FrameCursor cursor = reader.frames(0, 2);
            List<List<byte[]>> actual = emptyLists(2);
            while (cursor.hasNext()) {
                FrameIterator frames = Frames.iterate(cursor.nextFrame(), "test");
                assertThat(frames.next()).isTrue();
                if (frames.payloadLength() > Frames.MAX_PAYLOAD_BYTES) {
                    RecordIterator records = frames.records();
                    assertThat(records.next().remaining()).isEqualTo(big.length);
                    assertThat(records.hasNext()).as("an oversized frame holds one record").isFalse();
                }
                collect(frames, actual);
                assertThat(frames.next()).isFalse();
            }
            assertSameRecords(actual, expected);
        }
    }

    @Test
    void aBufferOfExactlyTheMaximumPayloadIsOneFrameAndOneByteMoreSplitsAtARecord() throws IOException {
        // 16 records of 3 (varint) + 65,533 bytes fill exactly Frames.MAX_PAYLOAD_BYTES.
        byte[] record = new byte[65_533];
        try (PartitionFileWriter writer = new PartitionFileWriter(data(), index(), 2, 16 * 1024 * 1024)) {
            for (int i = 0; i < 16; i++) {
                writer.write(0, record, 0, record.length);
                writer.write(1, record, 0, record.length);
            }
            writer.write(1, new byte[] {7}, 0, 1);
            writer.finish();
        }
        try (PartitionFileReader reader = PartitionFileReader.open(data(), index())) {
            assertThat(reader.bytes(0)).isEqualTo(Frames.MAX_PAYLOAD_BYTES);
            assertThat(reader.frameCount(0)).isEqualTo(1);
            assertThat(reader.bytes(1)).isEqualTo(Frames.MAX_PAYLOAD_BYTES + 2);
            assertThat(reader.frameCount(1)).isEqualTo(2);
            FrameCursor cursor = reader.frames(1, 2);
            FrameIterator first = Frames.iterate(cursor.nextFrame(), "test");
            assertThat(first.next()).isTrue();
            assertThat(first.payloadLength()).isEqualTo(Frames.MAX_PAYLOAD_BYTES);
            FrameIterator second = Frames.iterate(cursor.nextFrame(), "test");
            assertThat(second.next()).isTrue();
            assertThat(second.payloadLength()).isEqualTo(2);
        }
    }

    @Test
    void readsASubrangeOfSubpartitions() throws IOException {
        try (PartitionFileWriter writer = new PartitionFileWriter(data(), index(), 10, 64)) {
            for (int i = 0; i < 1000; i++) {
                writer.write(i % 10, Types.STRING, "s" + (i % 10) + "-" + i);
            }
            writer.finish();
        }
        try (PartitionFileReader reader = PartitionFileReader.open(data(), index())) {
            FrameCursor cursor = reader.frames(3, 7);
            List<String> seen = new ArrayList<>();
            while (cursor.hasNext()) {
                FrameIterator frames = Frames.iterate(cursor.nextChunk(1 << 20), "test");
                while (frames.next()) {
                    RecordIterator records = frames.records();
                    while (records.hasNext()) {
                        seen.add(records.next(Types.STRING));
                    }
                }
            }
            assertThat(seen).hasSize(400);
            assertThat(seen.subList(0, 100)).allMatch(s -> s.startsWith("s3-"));
            assertThat(seen.subList(300, 400)).allMatch(s -> s.startsWith("s6-"));
            assertThat(seen.subList(0, 100)).isSortedAccordingTo(
                    (a, b) -> Integer.compare(Integer.parseInt(a.substring(3)), Integer.parseInt(b.substring(3))));
        }
    }

    @Test
    void truncatedDataFileIsRejectedOnOpen() throws IOException {
        writeSmallPartition();
        byte[] bytes = Files.readAllBytes(data());
        Files.write(data(), java.util.Arrays.copyOf(bytes, bytes.length - 10));
        assertThatThrownBy(() -> PartitionFileReader.open(data(), index()))
                .isInstanceOf(CorruptPartitionException.class)
                .hasMessageStartingWith("corrupt partition data " + data())
                .hasMessageContaining("truncated");
    }

    @Test
    void flippedPayloadByteIsACrcErrorNamingFileAndFrameOffset() throws IOException {
        writeSmallPartition();
        long frameOffset;
        try (PartitionFileReader reader = PartitionFileReader.open(data(), index())) {
            frameOffset = reader.frameOffset(1, 2);
        }
        flipByte(data(), frameOffset + Frames.HEADER_BYTES + 5);
        try (PartitionFileReader reader = PartitionFileReader.open(data(), index())) {
            FrameCursor cursor = reader.frames(0, 2);
            assertThatThrownBy(() -> {
                while (cursor.hasNext()) {
                    cursor.nextChunk(1 << 20);
                }
            }).isInstanceOf(CorruptPartitionException.class)
                    .hasMessage("corrupt partition data " + data() + ": frame at offset " + frameOffset
                            + " (subpartition 1): checksum mismatch");
        }
    }

    @Test
    void frameFiledUnderTheWrongSubpartitionIsRejected() throws IOException {
        writeSmallPartition();
        long frameOffset;
        try (PartitionFileReader reader = PartitionFileReader.open(data(), index())) {
            frameOffset = reader.frameOffset(0, 0);
        }
        flipByte(data(), frameOffset + 3);
        try (PartitionFileReader reader = PartitionFileReader.open(data(), index())) {
            assertThatThrownBy(() -> reader.frames(0, 1).nextFrame())
                    .isInstanceOf(CorruptPartitionException.class)
                    .hasMessageContaining("frame at offset " + frameOffset)
                    .hasMessageContaining("frame header says subpartition 64");
        }
    }

    @Test
    void corruptIndexIsRejected() throws IOException {
        writeSmallPartition();
        byte[] original = Files.readAllBytes(index());
        flipByte(index(), 20);
        assertThatThrownBy(() -> PartitionFileReader.open(data(), index()))
                .isInstanceOf(CorruptPartitionException.class)
                .hasMessage("corrupt partition index " + index() + ": checksum mismatch");

        Files.write(index(), java.util.Arrays.copyOf(original, 10));
        assertThatThrownBy(() -> PartitionFileReader.open(data(), index()))
                .hasMessageStartingWith("corrupt partition index " + index());

        byte[] wrongMagic = original.clone();
        wrongMagic[0] = 'X';
        Files.write(index(), wrongMagic);
        assertThatThrownBy(() -> PartitionFileReader.open(data(), index()))
                .hasMessageContaining("bad magic");
    }

    @Test
    void abortAndUnfinishedCloseDeleteBothFiles() throws IOException {
        PartitionFileWriter writer = new PartitionFileWriter(data(), index(), 2, 16);
        writer.write(0, new byte[100], 0, 100);
        writer.abort();
        assertThat(data()).doesNotExist();
        assertThat(index()).doesNotExist();
        assertThatThrownBy(() -> writer.write(0, new byte[1], 0, 1)).isInstanceOf(IllegalStateException.class);

        try (PartitionFileWriter unfinished = new PartitionFileWriter(data(), index(), 2, 16)) {
            unfinished.write(1, new byte[100], 0, 100);
        }
        assertThat(data()).doesNotExist();

        PartitionFileWriter finished = new PartitionFileWriter(data(), index(), 2, 16);
        finished.finish();
        finished.close();
        assertThat(data()).exists();
        assertThat(index()).exists();
        assertThat(dir.resolve("p.index.tmp")).doesNotExist();
        finished.abort();
        assertThat(data()).doesNotExist();
        assertThat(index()).doesNotExist();
    }

    private void writeSmallPartition() throws IOException {
        try (PartitionFileWriter writer = new PartitionFileWriter(data(), index(), 2, 100)) {
            for (int i = 0; i < 200; i++) {
                writer.write(i % 2, Types.LONG, (long) i);
            }
            writer.finish();
        }
    }

    private static void flipByte(Path file, long position) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        bytes[(int) position] ^= 0x40;
        Files.write(file, bytes);
    }

    private static List<List<byte[]>> emptyLists(int n) {
        List<List<byte[]>> lists = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            lists.add(new ArrayList<>());
        }
        return lists;
    }

    private static List<List<byte[]>> readAll(FrameCursor cursor, int chunkBytes) throws IOException {
        List<List<byte[]>> actual = new ArrayList<>();
        while (cursor.hasNext()) {
            FrameIterator frames = Frames.iterate(cursor.nextChunk(chunkBytes), "test");
            while (frames.next()) {
                while (actual.size() <= frames.subpartition()) {
                    actual.add(new ArrayList<>());
                }
                collect(frames, actual);
            }
        }
        return actual;
    }

    private static void collect(FrameIterator frames, List<List<byte[]>> into) {
        RecordIterator records = frames.records();
        while (records.hasNext()) {
            DataReader record = records.next();
            into.get(frames.subpartition()).add(record.readBytes(record.remaining()));
        }
    }

    private static void assertSameRecords(List<List<byte[]>> actual, List<List<byte[]>> expected) {
        for (int sub = 0; sub < expected.size(); sub++) {
            List<byte[]> want = expected.get(sub);
            List<byte[]> got = sub < actual.size() ? actual.get(sub) : List.of();
            assertThat(got).as("subpartition %s", sub).hasSameSizeAs(want);
            for (int i = 0; i < want.size(); i++) {
                assertThat(got.get(i)).as("subpartition %s record %s", sub, i).isEqualTo(want.get(i));
            }
        }
    }
}
