package io.duraflow.jobstore;

import io.duraflow.fs.FsPath;
import java.io.IOException;

/**
 * A store file that cannot be read: not JSON, truncated, a checksum mismatch, an unknown format
 * version or missing fields. The message names the file and the reason, e.g. {@code corrupt job
 * graph file /ha/default/job-graphs/j1.json: checksum mismatch: ...}.
 */
public final class CorruptStoreFileException extends IOException {
    private final FsPath file;
    private final String reason;

    public CorruptStoreFileException(String kind, FsPath file, String reason) {
        super("corrupt " + kind + " file " + file + ": " + reason);
        this.file = file;
        this.reason = reason;
    }

    public FsPath file() {
        return file;
    }

    /** Why the file cannot be read, without the file name. */
    public String reason() {
        return reason;
    }
}
