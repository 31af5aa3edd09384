package io.duraflow.jobmanager.events;

import io.duraflow.fs.FsPath;
import java.io.IOException;

/**
 * A job event log that cannot be replayed: a checksum mismatch, an impossible record length, a
 * bad magic or version, an unparsable or unknown event, or a missing file. The message names the
 * file and the byte offset of the bad record (0 for a whole file), e.g. {@code corrupt job event
 * log /ha/default/j1/job-events/events.1 at offset 1234: checksum mismatch ...}.
 *
 * <p>Recovery must not replay a log with a hole in it, so a caller falls back to running the whole
 * job again. A torn last record (a crash while writing) is not corruption; see {@link JobEventReader}.
 */
public final class CorruptJobEventLogException extends IOException {
    private final transient FsPath file;
    private final long offset;
    private final String reason;

    public CorruptJobEventLogException(FsPath file, long offset, String reason) {
        super("corrupt job event log " + file + " at offset " + offset + ": " + reason);
        this.file = file;
        this.offset = offset;
        this.reason = reason;
    }

    public FsPath file() {
        return file;
    }

    /** Byte offset in {@link #file()} of the record (or header) that is bad. */
    public long offset() {
        return offset;
    }

    /** What is wrong, without file and offset. */
    public String reason() {
        return reason;
    }
}
