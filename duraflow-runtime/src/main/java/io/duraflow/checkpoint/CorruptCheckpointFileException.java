package io.duraflow.checkpoint;

import io.duraflow.fs.FsPath;
import java.io.IOException;

/**
 * A checkpoint file that cannot be read: torn, a checksum mismatch, another format or version, or
 * contents that make no sense. The message names the file and the reason, e.g. {@code corrupt
 * checkpoint metadata file /ckpt/j1/chk-3/_metadata: checksum mismatch ...}.
 */
public final class CorruptCheckpointFileException extends IOException {
    private final FsPath file;

    public CorruptCheckpointFileException(String kind, FsPath file, String reason) {
        super("corrupt " + kind + " file " + file + ": " + reason);
        this.file = file;
    }

    public CorruptCheckpointFileException(String kind, FsPath file, String reason, Throwable cause) {
        super("corrupt " + kind + " file " + file + ": " + reason, cause);
        this.file = file;
    }

    public FsPath file() {
        return file;
    }
}
