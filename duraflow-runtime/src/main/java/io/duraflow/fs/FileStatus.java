package io.duraflow.fs;

import java.util.Objects;

/**
 * What a {@link FileSystem} knows about one entry.
 *
 * @param path the entry
 * @param isDirectory whether it is a directory (then {@code lengthBytes} is 0)
 * @param lengthBytes the file's length: every byte written and flushed or closed so far
 * @param modificationTimeMs last modification, epoch milliseconds, at the file system's resolution
 */
public record FileStatus(FsPath path, boolean isDirectory, long lengthBytes, long modificationTimeMs) {
    public FileStatus {
        Objects.requireNonNull(path, "path");
        if (lengthBytes < 0) {
            throw new IllegalArgumentException("negative length " + lengthBytes + " of " + path);
        }
    }
}
