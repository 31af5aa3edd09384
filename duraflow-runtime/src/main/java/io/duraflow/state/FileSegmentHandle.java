package io.duraflow.state;

import io.duraflow.fs.FsPath;
import java.util.Objects;

/**
 * {@code length} bytes of {@code file} from {@code offset}. Without file merging a segment covers
 * its whole file (offset 0); with it, many segments share one physical file.
 */
public record FileSegmentHandle(FsPath file, long offset, long length) implements StreamStateHandle {
    public FileSegmentHandle {
        Objects.requireNonNull(file, "file");
        if (offset < 0 || length < 0) {
            throw new IllegalArgumentException("segment of " + file + " at " + offset + " with length " + length);
        }
    }
}
