package io.duraflow.state.filemerging;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.fs.FileSystem;
import io.duraflow.fs.FsPath;
import io.duraflow.fs.LocalFileSystem;
import io.duraflow.fs.WriteMode;
import io.duraflow.state.CheckpointDirectories;
import io.duraflow.state.FileSegmentHandle;
import io.duraflow.state.StreamStateHandle;
import io.duraflow.state.storage.CheckpointOutputStream;
import io.duraflow.state.storage.CheckpointedStateScope;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The byte layout of {@link MergedFileFormat} and what {@link MergedFileFormat#verify} says about damaged files. */
class MergedFileFormatTest {
    /** The example in docs/design/checkpoint-file-merging.md: one segment of the bytes 01 02 03. */
    private static final String EXAMPLE = "44464d47" + "00000001" + "010203" + "44465347" + "0000000000000003"
            + "f130f21e";

    private final FileSystem fs = LocalFileSystem.INSTANCE;

    @TempDir
    Path tmp;

    @Test
    void theJavadocExampleIsByteExact() {
        byte[] file = concat(MergedFileFormat.header(), new byte[] {1, 2, 3},
                MergedFileFormat.trailer(3, crc(1, 2, 3)));

        assertThat(HexFormat.of().formatHex(file)).isEqualTo(EXAMPLE);
        assertThat(file).hasSize(27);
        assertThat(MergedFileFormat.HEADER_BYTES).isEqualTo(8);
        assertThat(MergedFileFormat.TRAILER_BYTES).isEqualTo(16);
    }

    @Test
    void aManagerWritesExactlyTheJavadocExampleForOneThreeByteStream() throws IOException {
        FileMergingSettings settings = new FileMergingSettings(false, 1 << 20, false, 4, 2.0, 0, 1024);
        SubtaskKey subtask = new SubtaskKey(0, 0, 1);
        try (FileMergingSnapshotManager manager = new FileMergingSnapshotManager("job", "tm", "run", fs,
                CheckpointDirectories.of(FsPath.of(tmp), "job"), settings, Runnable::run)) {
            manager.register(subtask);
            StreamStateHandle handle;
            try (CheckpointOutputStream out = manager.streamFactory(subtask, 1)
                    .createCheckpointOutputStream(CheckpointedStateScope.EXCLUSIVE)) {
                out.write(new byte[] {1, 2, 3});
                handle = out.closeAndGetHandle();
            }
            FileSegmentHandle segment = (FileSegmentHandle) handle;

            assertThat(segment.offset()).isEqualTo(8);
            assertThat(segment.length()).isEqualTo(3);
            assertThat(HexFormat.of().formatHex(fs.readFile(segment.file()))).isEqualTo(EXAMPLE);
            assertThat(MergedFileFormat.verify(fs, segment)).isEmpty();
        }
    }

    @Test
    void verifyAcceptsEveryWholeSegmentOfAFile() throws IOException {
        FsPath file = file("whole");
        byte[] first = bytes(100, 1);
        byte[] second = bytes(70_000, 2); // more than verify's read buffer
        write(file, MergedFileFormat.header(), segment(first), segment(second), segment(new byte[0]));

        assertThat(MergedFileFormat.verify(fs, new FileSegmentHandle(file, 8, 100))).isEmpty();
        assertThat(MergedFileFormat.verify(fs, new FileSegmentHandle(file, 8 + 116, 70_000))).isEmpty();
        assertThat(MergedFileFormat.verify(fs, new FileSegmentHandle(file, 8 + 116 + 70_016, 0))).isEmpty();
    }

    @Test
    void aFlippedByteIsACrcMismatchThatNamesTheFileAndSparesTheOtherSegments() throws IOException {
        FsPath file = file("flipped");
        write(file, MergedFileFormat.header(), segment(bytes(50, 1)), segment(bytes(60, 2)));
        byte[] damaged = fs.readFile(file);
        damaged[8 + 66 + 10] ^= 0x01; // a byte inside the second segment
        fs.writeFile(file, damaged, WriteMode.OVERWRITE);

        assertThat(MergedFileFormat.verify(fs, new FileSegmentHandle(file, 8 + 66, 60))).hasValueSatisfying(why ->
                assertThat(why).contains(file.toString(), "CRC32C", "corrupt", "offset 74"));
        assertThat(MergedFileFormat.verify(fs, new FileSegmentHandle(file, 8, 50))).isEmpty();
    }

    @Test
    void aFileTruncatedInsideTheSegmentsBytesEndsInsideIt() throws IOException {
        FsPath file = file("torn-bytes");
        write(file, MergedFileFormat.header(), Arrays.copyOf(bytes(40, 1), 25));

        assertThat(MergedFileFormat.verify(fs, new FileSegmentHandle(file, 8, 40))).hasValueSatisfying(why ->
                assertThat(why).contains(file.toString(), "ends inside the segment of 40 bytes at offset 8"));
    }

    @Test
    void aFileTruncatedInsideTheTrailerHasNoWholeTrailer() throws IOException {
        FsPath file = file("torn-trailer");
        byte[] whole = concat(MergedFileFormat.header(), segment(bytes(40, 1)));
        write(file, Arrays.copyOf(whole, whole.length - 5));

        assertThat(MergedFileFormat.verify(fs, new FileSegmentHandle(file, 8, 40))).hasValueSatisfying(why ->
                assertThat(why).contains(file.toString(), "has no whole trailer"));
    }

    @Test
    void aFileTruncatedInsideTheHeaderIsShorterThanTheHeader() throws IOException {
        FsPath file = file("torn-header");
        write(file, Arrays.copyOf(MergedFileFormat.header(), 5));

        assertThat(MergedFileFormat.verify(fs, new FileSegmentHandle(file, 8, 3))).hasValueSatisfying(why ->
                assertThat(why).contains(file.toString(), "is 5 bytes long, shorter than the header"));
    }

    @Test
    void aWrongMagicIsNotAMergedFile() throws IOException {
        FsPath file = file("not-merged");
        byte[] header = MergedFileFormat.header();
        header[3] = 'X';
        write(file, header, segment(bytes(3, 1)));

        assertThat(MergedFileFormat.verify(fs, new FileSegmentHandle(file, 8, 3))).hasValueSatisfying(why ->
                assertThat(why).contains(file.toString(), "is not a merged checkpoint file", "0x44464d58"));
    }

    @Test
    void anotherVersionIsRejectedByName() throws IOException {
        FsPath file = file("version-2");
        byte[] header = MergedFileFormat.header();
        header[7] = 2;
        write(file, header, segment(bytes(3, 1)));

        assertThat(MergedFileFormat.verify(fs, new FileSegmentHandle(file, 8, 3))).hasValueSatisfying(why ->
                assertThat(why).contains(file.toString(), "version 2", "reads version 1"));
    }

    @Test
    void aHandleWhoseLengthDoesNotMatchItsTrailerDoesNotMatchTheFile() throws IOException {
        FsPath file = file("mismatch");
        write(file, MergedFileFormat.header(), segment(bytes(30, 1)), segment(bytes(30, 2)));

        assertThat(MergedFileFormat.verify(fs, new FileSegmentHandle(file, 8, 29))).hasValueSatisfying(why ->
                assertThat(why).contains(file.toString(), "has no trailer of a 29-byte segment",
                        "the handle does not match the file"));
        // A length that reaches into the next segment finds bytes where the trailer should be.
        assertThat(MergedFileFormat.verify(fs, new FileSegmentHandle(file, 8, 46))).hasValueSatisfying(why ->
                assertThat(why).contains("the handle does not match the file"));
    }

    @Test
    void aHandleInsideTheHeaderOverlapsIt() throws IOException {
        FsPath file = file("overlap");
        write(file, MergedFileFormat.header(), segment(bytes(3, 1)));

        assertThat(MergedFileFormat.verify(fs, new FileSegmentHandle(file, 4, 7))).hasValueSatisfying(why ->
                assertThat(why).contains(file.toString(), "overlaps its header"));
    }

    @Test
    void aMissingFileDoesNotExist() throws IOException {
        FsPath file = file("missing");

        assertThat(MergedFileFormat.verify(fs, new FileSegmentHandle(file, 8, 3))).hasValue(file + " does not exist");
    }

    // ------------------------------------------------------------------ helpers

    private FsPath file(String name) {
        return FsPath.of(tmp.resolve(name));
    }

    private void write(FsPath file, byte[]... parts) throws IOException {
        fs.writeFile(file, concat(parts), WriteMode.OVERWRITE);
        assertThat(Files.size(tmp.resolve(file.name()))).isEqualTo(concat(parts).length);
    }

    /** A segment's bytes and its trailer. */
    private static byte[] segment(byte[] bytes) {
        CRC32C crc = new CRC32C();
        crc.update(bytes);
        return concat(bytes, MergedFileFormat.trailer(bytes.length, (int) crc.getValue()));
    }

    private static int crc(int... bytes) {
        CRC32C crc = new CRC32C();
        for (int b : bytes) {
            crc.update(b);
        }
        return (int) crc.getValue();
    }

    private static byte[] bytes(int length, int seed) {
        byte[] bytes = new byte[length];
        new java.util.Random(seed).nextBytes(bytes);
        return bytes;
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            out.writeBytes(part);
        }
        return out.toByteArray();
    }
}
