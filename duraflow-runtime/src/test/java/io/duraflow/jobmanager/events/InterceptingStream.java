package io.duraflow.jobmanager.events;

import io.duraflow.fs.FsOutputStream;
import io.duraflow.fs.FsPath;
import io.duraflow.fs.LocalFileSystem;
import io.duraflow.fs.WriteMode;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A real local file that records its position after every write and sync call, and can fail the
 * n-th write call the way a full disk does: the first third of the bytes reach the file, then an
 * exception.
 */
final class InterceptingStream extends FsOutputStream {
    private final FsOutputStream delegate;
    private final int failingWrite;
    private int writes;
    /** File position after each write call. */
    final List<Long> positionsAfterWrites = new CopyOnWriteArrayList<>();
    /** File position at each call of {@link #sync}. */
    final List<Long> positionsSynced = new CopyOnWriteArrayList<>();

    /**
     * @param failingWrite the 1-based number of the write call that fails, or 0 for none
     */
    private InterceptingStream(FsOutputStream delegate, int failingWrite) {
        this.delegate = delegate;
        this.failingWrite = failingWrite;
    }

    static InterceptingStream createNew(FsPath file, int failingWrite) throws IOException {
        return new InterceptingStream(LocalFileSystem.INSTANCE.create(file, WriteMode.EXCLUSIVE), failingWrite);
    }

    @Override
    public void write(byte[] bytes, int offset, int length) throws IOException {
        if (++writes == failingWrite) {
            delegate.write(bytes, offset, length / 3);
            throw new IOException("No space left on device");
        }
        delegate.write(bytes, offset, length);
        positionsAfterWrites.add(delegate.position());
    }

    @Override
    public void write(int b) throws IOException {
        write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public long position() throws IOException {
        return delegate.position();
    }

    @Override
    public void sync() throws IOException {
        delegate.sync();
        positionsSynced.add(delegate.position());
    }

    @Override
    public void close() throws IOException {
        delegate.close();
    }
}
