package io.duraflow.state.filemerging;

import io.duraflow.fs.FsPath;
import io.duraflow.state.FileSegmentHandle;
import io.duraflow.state.InlineStateHandle;
import io.duraflow.state.StreamStateHandle;
import io.duraflow.state.storage.CheckpointOutputStream;
import io.duraflow.state.storage.CheckpointStreamFactory;
import io.duraflow.state.storage.CheckpointedStateScope;
import java.io.IOException;
import java.util.Arrays;
import java.util.Locale;
import java.util.Objects;
import java.util.zip.CRC32C;

/**
 * The streams of one subtask's part of one checkpoint with file merging: each ends as a segment of
 * a physical file of its pool ({@link FileMergingSnapshotManager}), or inline when it is small.
 *
 * <p>A stream collects its bytes in memory up to {@link FileMergingSettings#appendBufferBytes()}; if
 * it ends there it is <em>appended</em>: a file is held for one write of bytes and trailer and one
 * sync, so the many small streams of a checkpoint (operator state, a database's MANIFEST, most new
 * SST files) share one file even when they end at the same time. A stream that grows beyond it
 * holds a file from then on and writes through, the bytes it had collected first.
 */
final class MergingStreams implements CheckpointStreamFactory {
    private final FileMergingSnapshotManager manager;
    private final SubtaskKey subtask;
    private final long checkpointId;

    MergingStreams(FileMergingSnapshotManager manager, SubtaskKey subtask, long checkpointId) {
        this.manager = manager;
        this.subtask = subtask;
        this.checkpointId = checkpointId;
    }

    @Override
    public CheckpointOutputStream createCheckpointOutputStream(CheckpointedStateScope scope) {
        return new MergingOutputStream(Objects.requireNonNull(scope, "scope"));
    }

    @Override
    public boolean tryReuse(StreamStateHandle handle) {
        return manager.tryReuse(checkpointId, handle);
    }

    /**
     * Nothing: a segment's physical file may hold live segments of other streams (of retained
     * checkpoints, merging across checkpoints), so it is never deleted for one handle; the segment
     * dies with its checkpoint's abort or the end of the run (manager rules 1 and 5).
     */
    @Override
    public void discard(StreamStateHandle handle) {
    }

    private final class MergingOutputStream extends CheckpointOutputStream {
        private enum State { COLLECTING, WRITING_THROUGH, COMPLETED, ABORTED }

        private final CheckpointedStateScope scope;
        private final FileMergingSettings settings = manager.settings();
        private final CRC32C crc = new CRC32C();
        private byte[] buffer = new byte[1024];
        private int buffered;
        private long length;
        private PhysicalFile file;
        private long segmentOffset;
        private State state = State.COLLECTING;

        MergingOutputStream(CheckpointedStateScope scope) {
            this.scope = scope;
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] bytes, int offset, int count) throws IOException {
            Objects.checkFromIndexSize(offset, count, bytes.length);
            checkOpen();
            if (state == State.COLLECTING && (long) buffered + count > settings.appendBufferBytes()) {
                writeThrough();
            }
            if (state == State.COLLECTING) {
                if (buffered + count > buffer.length) {
                    buffer = Arrays.copyOf(buffer, (int) Math.min(settings.appendBufferBytes(),
                            Math.max((long) buffer.length * 2, (long) buffered + count)));
                }
                System.arraycopy(bytes, offset, buffer, buffered, count);
                buffered += count;
            } else {
                writeToFile(bytes, offset, count);
            }
            crc.update(bytes, offset, count);
            length += count;
        }

        /** From here on the stream holds a file and writes to it; what it collected goes first. */
        private void writeThrough() throws IOException {
            FilePool pool = manager.pool(subtask, scope, checkpointId);
            file = manager.take(pool, manager.directoryFor(subtask, scope), subtask, checkpointId, true);
            state = State.WRITING_THROUGH;
            segmentOffset = file.size;
            writeToFile(buffer, 0, buffered);
            buffer = null;
            buffered = 0;
        }

        private void writeToFile(byte[] bytes, int offset, int count) throws IOException {
            try {
                file.out.write(bytes, offset, count);
            } catch (IOException | RuntimeException e) {
                abortFile(true);
                throw e;
            }
        }

        @Override
        public long position() {
            return length;
        }

        @Override
        public StreamStateHandle closeAndGetHandle() throws IOException {
            checkOpen();
            if (state == State.COLLECTING) {
                if (buffered <= settings.inlineThresholdBytes()) {
                    state = State.COMPLETED;
                    return new InlineStateHandle(Arrays.copyOf(buffer, buffered));
                }
                return append();
            }
            try {
                file.out.write(MergedFileFormat.trailer(length, (int) crc.getValue()));
                file.out.sync();
            } catch (IOException | RuntimeException e) {
                abortFile(true);
                throw e;
            }
            return complete();
        }

        /** Holds a file for one write of the collected bytes and their trailer, and one sync. */
        private StreamStateHandle append() throws IOException {
            FilePool pool = manager.pool(subtask, scope, checkpointId);
            file = manager.take(pool, manager.directoryFor(subtask, scope), subtask, checkpointId, false);
            segmentOffset = file.size;
            try {
                file.out.write(buffer, 0, buffered);
                file.out.write(MergedFileFormat.trailer(length, (int) crc.getValue()));
                file.out.sync();
            } catch (IOException | RuntimeException e) {
                abortFile(true);
                throw e;
            }
            buffer = null;
            return complete();
        }

        private StreamStateHandle complete() {
            PhysicalFile held = file;
            file = null;
            state = State.COMPLETED;
            manager.giveBack(held, new Segment(held, subtask, segmentOffset, length, checkpointId), false,
                    segmentOffset + length + MergedFileFormat.TRAILER_BYTES);
            return new FileSegmentHandle(held.path, segmentOffset, length);
        }

        /** The file's end is unknown after a failed write (or holds a segment no one refers to): it takes no more. */
        private void abortFile(boolean broken) {
            PhysicalFile held = file;
            file = null;
            state = State.ABORTED;
            buffer = null;
            if (held != null) {
                long size = -1;
                try {
                    if (held.out != null) {
                        size = held.out.position();
                    }
                } catch (IOException | RuntimeException ignored) {
                    broken = true;
                }
                manager.giveBack(held, null, broken, size);
            }
        }

        @Override
        public void abort() {
            if (state == State.COMPLETED || state == State.ABORTED) {
                return;
            }
            // Bytes written through stay in the file as dead bytes (nothing refers to them); the
            // file goes on taking segments after them.
            abortFile(false);
        }

        private void checkOpen() throws IOException {
            if (state == State.COMPLETED || state == State.ABORTED) {
                throw new IOException("checkpoint stream of " + subtask + " for checkpoint " + checkpointId + " is already "
                        + state.name().toLowerCase(Locale.ROOT) + ": write a new stream");
            }
        }

        @Override
        public String toString() {
            FsPath path = file == null ? null : file.path;
            return "merging stream of " + subtask + " (" + scope + ", checkpoint " + checkpointId + ", " + length
                    + " bytes" + (path == null ? "" : ", in " + path) + ")";
        }
    }
}
