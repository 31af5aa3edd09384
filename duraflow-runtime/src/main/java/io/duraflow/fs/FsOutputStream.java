package io.duraflow.fs;

import java.io.IOException;
import java.io.OutputStream;

/**
 * A file being written by {@link FileSystem#create}: {@code write}, {@link #flush()} and {@link
 * #sync()} are three levels of "written". Not thread-safe. What each promises, and after a failure:
 * see docs/design/file-systems.md#fsoutputstream.
 */
public abstract class FsOutputStream extends OutputStream {
    /** Bytes written to this stream so far, which is the file's length once they are flushed. */
    public abstract long position() throws IOException;

    /** Makes every byte written so far durable, see the class comment. */
    public abstract void sync() throws IOException;
}
