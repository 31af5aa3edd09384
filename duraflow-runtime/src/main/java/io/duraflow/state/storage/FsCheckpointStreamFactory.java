package io.duraflow.state.storage;

import io.duraflow.fs.FileSystem;
import io.duraflow.fs.FsOutputStream;
import io.duraflow.fs.FsPath;
import io.duraflow.fs.WriteMode;
import io.duraflow.state.CheckpointDirectories;
import io.duraflow.state.FileSegmentHandle;
import io.duraflow.state.InlineStateHandle;
import io.duraflow.state.StreamStateHandle;
import java.io.IOException;
import java.util.Arrays;
import java.util.Objects;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * Writes each stream of one checkpoint either inline (at most {@code inlineThresholdBytes}: the
 * bytes travel in the acknowledgement and {@code _metadata}, no file) or as a new file of its own,
 * {@code chk-<n>/<uuid>} for {@link CheckpointedStateScope#EXCLUSIVE} and {@code shared/<uuid>}
 * for {@link CheckpointedStateScope#SHARED}, written through {@link FileSystem}, synced before its
 * handle is returned. File names are random so that no two writers, also of different attempts
 * or different JobManager leaders, ever pick the same name ({@link WriteMode#EXCLUSIVE} checks it).
 *
 * <p>The handle of a file stream is a {@link FileSegmentHandle} covering the whole file (offset 0).
 */
public final class FsCheckpointStreamFactory implements CheckpointStreamFactory {
    /** Bytes collected before each write to the file system once a stream spilled to a file. */
    static final int WRITE_BUFFER_BYTES = 64 * 1024;

    private final FileSystem fileSystem;
    private final FsPath exclusiveDirectory;
    private final FsPath sharedDirectory;
    private final int inlineThresholdBytes;
    private final Supplier<String> fileNames;

    public FsCheckpointStreamFactory(FileSystem fileSystem, FsPath exclusiveDirectory, FsPath sharedDirectory,
            int inlineThresholdBytes, Supplier<String> fileNames) {
        this.fileSystem = Objects.requireNonNull(fileSystem, "fileSystem");
        this.exclusiveDirectory = Objects.requireNonNull(exclusiveDirectory, "exclusiveDirectory");
        this.sharedDirectory = Objects.requireNonNull(sharedDirectory, "sharedDirectory");
        if (inlineThresholdBytes < 0) {
            throw new IllegalArgumentException("negative inline threshold " + inlineThresholdBytes);
        }
        this.inlineThresholdBytes = inlineThresholdBytes;
        this.fileNames = Objects.requireNonNull(fileNames, "fileNames");
    }

    /** The factory for checkpoint {@code checkpointId} of a job laid out as {@code directories}. */
    public static FsCheckpointStreamFactory forCheckpoint(FileSystem fileSystem, CheckpointDirectories directories,
            long checkpointId, int inlineThresholdBytes) {
        return new FsCheckpointStreamFactory(fileSystem, directories.checkpoint(checkpointId), directories.shared(),
                inlineThresholdBytes, () -> UUID.randomUUID().toString());
    }

    @Override
    public CheckpointOutputStream createCheckpointOutputStream(CheckpointedStateScope scope) {
        FsPath directory = switch (Objects.requireNonNull(scope, "scope")) {
            case EXCLUSIVE -> exclusiveDirectory;
            case SHARED -> sharedDirectory;
        };
        return new FsCheckpointOutputStream(directory);
    }

    /**
     * Collects bytes in memory while they may still be inlined; the first write beyond the
     * threshold creates the file, and from then on the buffer only batches writes.
     */
    private final class FsCheckpointOutputStream extends CheckpointOutputStream {
        private enum State { OPEN, COMPLETED, ABORTED }

        private final FsPath directory;
        /** Larger than the inline threshold, so a stream that never filled it can be inlined. */
        private final byte[] buffer = new byte[Math.max(WRITE_BUFFER_BYTES, inlineThresholdBytes + 1)];
        private int buffered;
        private long flushedBytes;
        private FsPath file;
        private FsOutputStream out;
        private State state = State.OPEN;

        FsCheckpointOutputStream(FsPath directory) {
            this.directory = directory;
        }

        @Override
        public void write(int b) throws IOException {
            checkOpen();
            if (buffered == buffer.length) {
                flushBuffer();
            }
            buffer[buffered++] = (byte) b;
        }

        @Override
        public void write(byte[] bytes, int offset, int length) throws IOException {
            Objects.checkFromIndexSize(offset, length, bytes.length);
            checkOpen();
            if (length > buffer.length - buffered) {
                flushBuffer();
                if (length >= buffer.length) {
                    writeToFile(bytes, offset, length);
                    return;
                }
            }
            System.arraycopy(bytes, offset, buffer, buffered, length);
            buffered += length;
        }

        @Override
        public long position() {
            return flushedBytes + buffered;
        }

        @Override
        public StreamStateHandle closeAndGetHandle() throws IOException {
            checkOpen();
            try {
                if (out == null && buffered <= inlineThresholdBytes) {
                    state = State.COMPLETED;
                    return new InlineStateHandle(Arrays.copyOf(buffer, buffered));
                }
                flushBuffer();
                out.sync();
                out.close();
                state = State.COMPLETED;
                return new FileSegmentHandle(file, 0, flushedBytes);
            } catch (IOException | RuntimeException e) {
                abort();
                throw e;
            }
        }

        @Override
        public void abort() {
            if (state != State.OPEN) {
                return;
            }
            state = State.ABORTED;
            if (out != null) {
                try {
                    out.close();
                } catch (IOException | RuntimeException ignored) {
                    // the file is deleted next; a close failure changes nothing about that
                }
            }
            if (file != null) {
                try {
                    fileSystem.delete(file);
                } catch (IOException | RuntimeException ignored) {
                    // best effort: a file left here belongs to no handle, and the checkpoint's directory
                    // (or, for shared files, the orphan scan) removes it
                }
            }
        }

        private void checkOpen() throws IOException {
            if (state != State.OPEN) {
                throw new IOException("checkpoint stream in " + directory + " is already "
                        + state.name().toLowerCase(java.util.Locale.ROOT) + ": write a new stream");
            }
        }

        private void flushBuffer() throws IOException {
            if (buffered > 0) {
                writeToFile(buffer, 0, buffered);
                buffered = 0;
            }
        }

        private void writeToFile(byte[] bytes, int offset, int length) throws IOException {
            if (out == null) {
                file = directory.resolve(fileNames.get());
                out = fileSystem.create(file, WriteMode.EXCLUSIVE);
            }
            out.write(bytes, offset, length);
            flushedBytes += length;
        }
    }
}
