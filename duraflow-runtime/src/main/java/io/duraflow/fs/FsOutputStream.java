package io.duraflow.fs;

import java.io.IOException;
import java.io.OutputStream;

/**
 * A file being written by {@link FileSystem#create}. Not thread-safe.
 *
 * <p>Three levels of "written", from weakest to strongest:
 * <ol>
 *   <li>{@code write}: the bytes may sit in a buffer of this process;</li>
 *   <li>{@link #flush()}: the bytes are handed to the file system; other readers may see them (on
 *       HDFS: {@code hflush}); a crash of the machine may still lose them;</li>
 *   <li>{@link #sync()}: the bytes written so far, and the file's name, survive a crash of this
 *       process and of the machine (local: {@code fdatasync} of the file and, on the first sync,
 *       {@code fsync} of its directory; HDFS: {@code hsync}).</li>
 * </ol>
 * {@link #close()} flushes but does not sync: call {@link #sync()} first when the file must be
 * durable. After a crash, an unsynced file may be missing, shorter than written, or (on some local
 * file systems) padded with zero bytes; readers of append-only formats must expect that at the end.
 * On object stores the whole file appears only when it is closed, and {@code sync} can do no more
 * than {@code flush}: such file systems say so in their javadoc, and formats that need durable
 * appends must not be put on them.
 *
 * <p>An {@link IOException} from {@code write}, {@code flush} or {@code sync} leaves the file's
 * contents undefined after the last successful {@code sync}: a prefix of what was written, possibly
 * ending inside a write call. Close the stream and do not write to it again.
 */
public abstract class FsOutputStream extends OutputStream {
    /** Bytes written to this stream so far, which is the file's length once they are flushed. */
    public abstract long position() throws IOException;

    /** Makes every byte written so far durable, see the class comment. */
    public abstract void sync() throws IOException;
}
