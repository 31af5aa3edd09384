package io.duraflow.state.filemerging;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.fs.FileSystem;
import io.duraflow.fs.FsPath;
import io.duraflow.fs.LocalFileSystem;
import io.duraflow.state.CheckpointDirectories;
import io.duraflow.state.FileSegmentHandle;
import io.duraflow.state.StreamStateHandle;
import io.duraflow.state.storage.CheckpointOutputStream;
import io.duraflow.state.storage.CheckpointStreamFactory;
import io.duraflow.state.storage.CheckpointedStateScope;
import io.duraflow.state.storage.StreamStateHandles;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

/**
 * A job's checkpoint directory in a temporary directory, and helpers for the file-merging tests:
 * managers whose deletions run on the caller's thread, writing a stream, reading it back.
 */
final class MergingFixture {
    static final String JOB = "job";
    /** Streams up to this size are appended in one write; larger ones hold a file and write through. */
    static final int APPEND_BUFFER_BYTES = 4096;
    /** Bytes a segment of {@code n} bytes takes in its file. */
    static final int TRAILER = MergedFileFormat.TRAILER_BYTES;
    static final int HEADER = MergedFileFormat.HEADER_BYTES;

    final Path root;
    final FileSystem fs;
    final CheckpointDirectories directories;

    MergingFixture(Path root) {
        this(root, LocalFileSystem.INSTANCE);
    }

    MergingFixture(Path root, FileSystem fs) {
        this.root = root;
        this.fs = fs;
        this.directories = CheckpointDirectories.of(FsPath.of(root), JOB);
    }

    /** Nothing inlined; streams above {@link #APPEND_BUFFER_BYTES} write through; 4 subtasks per private file. */
    static FileMergingSettings settings(boolean across, long maxFileSizeBytes, boolean blocking,
            double maxSpaceAmplification) {
        return new FileMergingSettings(across, maxFileSizeBytes, blocking, 4, maxSpaceAmplification, 0,
                APPEND_BUFFER_BYTES);
    }

    static FileMergingSettings within() {
        return settings(false, 1 << 20, false, 2.0);
    }

    static FileMergingSettings across() {
        return settings(true, 1 << 20, false, 2.0);
    }

    /** A manager of run {@code run} on TaskManager {@code tm}, deleting on the caller's thread. */
    FileMergingSnapshotManager manager(String run, FileMergingSettings settings, SubtaskKey... subtasks) {
        FileMergingSnapshotManager manager = new FileMergingSnapshotManager(JOB, "tm", run, fs, directories, settings,
                Runnable::run);
        for (SubtaskKey subtask : subtasks) {
            manager.register(subtask);
        }
        return manager;
    }

    /** Writes {@code bytes} as one stream of {@code subtask}'s part of {@code checkpointId}, 1000 bytes per write. */
    static StreamStateHandle write(FileMergingSnapshotManager manager, SubtaskKey subtask, long checkpointId,
            CheckpointedStateScope scope, byte[] bytes) throws IOException {
        return write(manager.streamFactory(subtask, checkpointId), scope, bytes);
    }

    static StreamStateHandle write(CheckpointStreamFactory streams, CheckpointedStateScope scope, byte[] bytes)
            throws IOException {
        try (CheckpointOutputStream out = streams.createCheckpointOutputStream(scope)) {
            for (int offset = 0; offset < bytes.length; offset += 1000) {
                out.write(bytes, offset, Math.min(1000, bytes.length - offset));
            }
            assertThat(out.position()).isEqualTo(bytes.length);
            return out.closeAndGetHandle();
        }
    }

    static FileSegmentHandle segment(StreamStateHandle handle) {
        assertThat(handle).isInstanceOf(FileSegmentHandle.class);
        return (FileSegmentHandle) handle;
    }

    static FsPath fileOf(StreamStateHandle handle) {
        return segment(handle).file();
    }

    /** {@code length} random bytes, the same for the same seed. */
    static byte[] bytes(int length, long seed) {
        byte[] bytes = new byte[length];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }

    /** The handle reads back exactly {@code expected}, and its segment is whole ({@link MergedFileFormat#verify}). */
    void assertReadsBack(StreamStateHandle handle, byte[] expected) throws IOException {
        assertThat(StreamStateHandles.readAll(handle)).as("bytes of %s", handle).isEqualTo(expected);
        try (InputStream in = StreamStateHandles.open(fs, handle, 0)) {
            assertThat(in.readAllBytes()).as("bytes of %s on %s", handle, fs.scheme()).isEqualTo(expected);
        }
        if (handle instanceof FileSegmentHandle segment) {
            assertThat(MergedFileFormat.verify(fs, segment)).as("verify %s", handle).isEmpty();
        }
    }

    boolean exists(FsPath path) {
        try {
            return fs.exists(path);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every regular file under the job's directory, e.g. the merged files left on disk. */
    List<FsPath> filesOnDisk() {
        Path job = root.resolve(JOB);
        if (!Files.exists(job)) {
            return List.of();
        }
        try (Stream<Path> walk = Files.walk(job)) {
            return walk.filter(Files::isRegularFile).map(FsPath::of).sorted(java.util.Comparator.comparing(
                    FsPath::toString)).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Bytes of the file on disk. */
    long size(FsPath file) {
        try {
            return fs.status(file).lengthBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    FsPath sharedDirectory(SubtaskKey subtask) {
        return directories.sharedFileMergingDirectory(subtask.sharedDirectoryName());
    }
}
