package io.duraflow.state.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.config.Configuration;
import io.duraflow.config.StateOptions;
import io.duraflow.fs.FileSystem;
import io.duraflow.fs.FsPath;
import io.duraflow.fs.LocalFileSystem;
import io.duraflow.state.CheckpointDirectories;
import io.duraflow.state.FileSegmentHandle;
import io.duraflow.state.InlineStateHandle;
import io.duraflow.state.StreamStateHandle;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FsCheckpointStreamFactoryTest {
    @TempDir
    Path dir;

    private final FileSystem fs = LocalFileSystem.INSTANCE;

    private CheckpointDirectories directories() {
        return CheckpointDirectories.of(FsPath.of(dir), "job-1");
    }

    private CheckpointStreamFactory factory(int inlineThreshold) {
        return FsCheckpointStreamFactory.forCheckpoint(fs, directories(), 7, inlineThreshold);
    }

    private static byte[] bytes(int length, long seed) {
        byte[] data = new byte[length];
        new Random(seed).nextBytes(data);
        return data;
    }

    private static StreamStateHandle write(CheckpointStreamFactory factory, CheckpointedStateScope scope, byte[] data)
            throws IOException {
        try (CheckpointOutputStream out = factory.createCheckpointOutputStream(scope)) {
            // mixed single-byte and array writes, as format writers do
            out.write(data, 0, Math.min(3, data.length));
            for (int i = 3; i < Math.min(10, data.length); i++) {
                out.write(data[i]);
            }
            if (data.length > 10) {
                out.write(data, 10, data.length - 10);
            }
            assertThat(out.position()).isEqualTo(data.length);
            return out.closeAndGetHandle();
        }
    }

    @Test
    void streamsUpToTheThresholdAreInlineAndWriteNoFile() throws IOException {
        byte[] data = bytes(100, 1);

        StreamStateHandle handle = write(factory(100), CheckpointedStateScope.EXCLUSIVE, data);

        assertThat(handle).isEqualTo(new InlineStateHandle(data));
        assertThat(StreamStateHandles.readAll(handle)).isEqualTo(data);
        assertThat(Files.exists(dir.resolve("job-1"))).isFalse();
    }

    @Test
    void longerStreamsBecomeAFileOfTheirOwnInTheScopesDirectory() throws IOException {
        byte[] data = bytes(200_000, 2);

        StreamStateHandle exclusive = write(factory(100), CheckpointedStateScope.EXCLUSIVE, data);
        StreamStateHandle shared = write(factory(100), CheckpointedStateScope.SHARED, bytes(101, 3));

        assertThat(exclusive).isInstanceOf(FileSegmentHandle.class);
        FileSegmentHandle segment = (FileSegmentHandle) exclusive;
        assertThat(segment.offset()).isZero();
        assertThat(segment.length()).isEqualTo(data.length);
        assertThat(segment.file().parent()).isEqualTo(directories().checkpoint(7));
        assertThat(StreamStateHandles.readAll(exclusive)).isEqualTo(data);
        assertThat(((FileSegmentHandle) shared).file().parent()).isEqualTo(directories().shared());
        assertThat(((FileSegmentHandle) shared).length()).isEqualTo(101);
    }

    @Test
    void thresholdZeroInlinesOnlyEmptyStreams() throws IOException {
        assertThat(write(factory(0), CheckpointedStateScope.EXCLUSIVE, new byte[0]))
                .isEqualTo(new InlineStateHandle(new byte[0]));
        assertThat(write(factory(0), CheckpointedStateScope.EXCLUSIVE, new byte[1]))
                .isInstanceOf(FileSegmentHandle.class);
    }

    @Test
    void everyFileGetsItsOwnName() throws IOException {
        CheckpointStreamFactory factory = factory(0);
        StreamStateHandle first = write(factory, CheckpointedStateScope.EXCLUSIVE, bytes(10, 4));
        StreamStateHandle second = write(factory, CheckpointedStateScope.EXCLUSIVE, bytes(10, 5));

        assertThat(((FileSegmentHandle) first).file()).isNotEqualTo(((FileSegmentHandle) second).file());
    }

    @Test
    void readingFromAnOffsetOfASegmentReadsOnlyThatSegment() throws IOException {
        byte[] data = bytes(1000, 6);
        FsPath file = FsPath.of(dir).resolve("merged");
        fs.writeFile(file, data, io.duraflow.fs.WriteMode.EXCLUSIVE);
        FileSegmentHandle segment = new FileSegmentHandle(file, 100, 300);

        try (InputStream in = StreamStateHandles.open(segment, 50)) {
            assertThat(in.readAllBytes()).isEqualTo(Arrays.copyOfRange(data, 150, 400));
        }
        assertThat(StreamStateHandles.readAll(segment)).isEqualTo(Arrays.copyOfRange(data, 100, 400));
    }

    @Test
    void abortAndCloseWithoutHandleDeleteTheFile() throws IOException {
        CheckpointStreamFactory factory = factory(0);
        CheckpointOutputStream aborted = factory.createCheckpointOutputStream(CheckpointedStateScope.EXCLUSIVE);
        aborted.write(bytes(100_000, 7));
        assertThat(listFiles()).hasSize(1);
        aborted.abort();
        assertThat(listFiles()).isEmpty();
        assertThatThrownBy(() -> aborted.write(1)).isInstanceOf(IOException.class).hasMessageContaining("aborted");

        try (CheckpointOutputStream closed = factory.createCheckpointOutputStream(CheckpointedStateScope.EXCLUSIVE)) {
            closed.write(bytes(100_000, 8));
        }
        assertThat(listFiles()).isEmpty();
    }

    @Test
    void discardDeletesTheFileAndIsIdempotent() throws IOException {
        StreamStateHandle handle = write(factory(0), CheckpointedStateScope.EXCLUSIVE, bytes(10, 9));
        StreamStateHandles.discard(handle);
        StreamStateHandles.discard(handle);
        StreamStateHandles.discard(new InlineStateHandle(new byte[3]));

        assertThat(listFiles()).isEmpty();
    }

    @Test
    void aMissingOrShortFileIsAnErrorNamingTheFile() throws IOException {
        FileSegmentHandle handle = (FileSegmentHandle) write(factory(0), CheckpointedStateScope.EXCLUSIVE,
                bytes(1000, 10));
        FileSegmentHandle tooLong = new FileSegmentHandle(handle.file(), 0, 2000);
        assertThatThrownBy(() -> StreamStateHandles.readAll(tooLong)).isInstanceOf(IOException.class)
                .hasMessageContaining(handle.file().toString()).hasMessageContaining("shorter");

        Files.delete(handle.file().toLocalPath());
        assertThatThrownBy(() -> StreamStateHandles.readAll(handle)).isInstanceOf(IOException.class)
                .hasMessageContaining(handle.file().toString()).hasMessageContaining("does not exist");
    }

    @Test
    void theStorageTakesItsInlineThresholdFromTheConfiguration() throws IOException {
        Configuration configuration = new Configuration().set(StateOptions.INLINE_THRESHOLD,
                io.duraflow.config.MemorySize.ofBytes(10));
        FsCheckpointStorage storage = FsCheckpointStorage.create(FsPath.of(dir), "job-1", configuration);

        assertThat(write(storage.streamFactory(3), CheckpointedStateScope.EXCLUSIVE, bytes(10, 11)))
                .isInstanceOf(InlineStateHandle.class);
        StreamStateHandle file = write(storage.streamFactory(3), CheckpointedStateScope.EXCLUSIVE, bytes(11, 12));
        assertThat(((FileSegmentHandle) file).file().parent()).isEqualTo(storage.directories().checkpoint(3));
        assertThat(new Configuration().get(StateOptions.INLINE_THRESHOLD).bytes()).isEqualTo(16 * 1024);
    }

    private java.util.List<Path> listFiles() throws IOException {
        if (!Files.exists(dir.resolve("job-1"))) {
            return java.util.List.of();
        }
        try (var walk = Files.walk(dir.resolve("job-1"))) {
            return walk.filter(Files::isRegularFile).toList();
        }
    }
}
