package io.duraflow.state.storage;

import io.duraflow.fs.FileSystem;
import io.duraflow.fs.FileSystems;
import io.duraflow.state.FileSegmentHandle;
import io.duraflow.state.InlineStateHandle;
import io.duraflow.state.StreamStateHandle;
import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.NoSuchFileException;

/** Reading and discarding the bytes a {@link StreamStateHandle} refers to, on any file system. */
public final class StreamStateHandles {
    private StreamStateHandles() {
    }

    /** The handle's bytes from its start, on the file system its path names. */
    public static InputStream open(StreamStateHandle handle) throws IOException {
        return open(handle, 0);
    }

    /**
     * The handle's bytes from {@code offset} (relative to the handle) to its end. A file that is
     * missing or shorter than the segment is an {@link IOException} naming the file.
     */
    public static InputStream open(StreamStateHandle handle, long offset) throws IOException {
        if (offset < 0 || offset > handle.length()) {
            throw new IllegalArgumentException("offset " + offset + " outside " + describe(handle));
        }
        if (handle instanceof InlineStateHandle inline) {
            byte[] bytes = inline.bytes();
            return new ByteArrayInputStream(bytes, (int) offset, bytes.length - (int) offset);
        }
        FileSegmentHandle segment = (FileSegmentHandle) handle;
        return openSegment(FileSystems.get(segment.file()), segment, offset);
    }

    /** Like {@link #open(StreamStateHandle, long)} on a given file system (tests, wrappers). */
    public static InputStream open(FileSystem fileSystem, StreamStateHandle handle, long offset) throws IOException {
        if (handle instanceof FileSegmentHandle segment) {
            if (offset < 0 || offset > handle.length()) {
                throw new IllegalArgumentException("offset " + offset + " outside " + describe(handle));
            }
            return openSegment(fileSystem, segment, offset);
        }
        return open(handle, offset);
    }

    /** All of the handle's bytes; for small state (operator state, headers). */
    public static byte[] readAll(StreamStateHandle handle) throws IOException {
        if (handle instanceof InlineStateHandle inline) {
            return inline.bytes();
        }
        if (handle.length() > Integer.MAX_VALUE - 16) {
            throw new IOException(describe(handle) + " is too large to read into memory");
        }
        try (InputStream in = open(handle)) {
            byte[] bytes = in.readNBytes((int) handle.length());
            if (bytes.length != handle.length()) {
                throw shortFile(handle, bytes.length);
            }
            return bytes;
        } catch (EOFException e) {
            throw missingOrShort(handle, e);
        }
    }

    /**
     * Deletes what the handle refers to: nothing for inline state, the file for a file segment. A
     * handle made by {@link FsCheckpointStreamFactory} owns its whole file; segments of merged
     * files are released through their file-merging manager, never here. Idempotent.
     */
    public static void discard(StreamStateHandle handle) throws IOException {
        if (handle instanceof FileSegmentHandle segment) {
            FileSystems.get(segment.file()).delete(segment.file());
        }
    }

    /** How error messages name the handle: the file with the segment, or the inline size. */
    public static String describe(StreamStateHandle handle) {
        if (handle instanceof FileSegmentHandle segment) {
            return segment.offset() == 0
                    ? "checkpoint file " + segment.file() + " (" + segment.length() + " bytes)"
                    : "checkpoint file " + segment.file() + " (" + segment.length() + " bytes at offset "
                            + segment.offset() + ")";
        }
        return "inline state of " + handle.length() + " bytes";
    }

    private static InputStream openSegment(FileSystem fileSystem, FileSegmentHandle segment, long offset)
            throws IOException {
        try {
            return fileSystem.open(segment.file(), segment.offset() + offset, segment.length() - offset);
        } catch (NoSuchFileException | FileNotFoundException | EOFException e) {
            throw missingOrShort(segment, e);
        }
    }

    private static IOException missingOrShort(StreamStateHandle handle, IOException cause) {
        String what = cause instanceof EOFException ? "is shorter than its state handle says"
                : "does not exist";
        return new IOException(describe(handle) + " " + what + ": the checkpoint is incomplete; restore from another"
                + " checkpoint (" + cause.getMessage() + ")", cause);
    }

    private static IOException shortFile(StreamStateHandle handle, int read) {
        return new IOException(describe(handle) + " is shorter than its state handle says (ends after " + read
                + " bytes): the checkpoint is incomplete; restore from another checkpoint");
    }
}
