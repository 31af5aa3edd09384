package io.duraflow.jobmanager.events;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A real file channel that records the file position after every write and force call, and can
 * fail the n-th write call the way a full disk does: the first third of the bytes reach the file,
 * then an exception.
 */
final class InterceptingChannel extends FileChannel {
    private final FileChannel delegate;
    private final int failingWrite;
    private int writes;
    /** File position after each write call. */
    final List<Long> positionsAfterWrites = new CopyOnWriteArrayList<>();
    /** File position at each call of {@link #force}. */
    final List<Long> positionsForced = new CopyOnWriteArrayList<>();

    /**
     * @param failingWrite the 1-based number of the write call that fails, or 0 for none
     */
    private InterceptingChannel(FileChannel delegate, int failingWrite) {
        this.delegate = delegate;
        this.failingWrite = failingWrite;
    }

    static InterceptingChannel createNew(Path file, int failingWrite) throws IOException {
        return new InterceptingChannel(
                FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE), failingWrite);
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        if (++writes == failingWrite) {
            ByteBuffer first = srcs[offset];
            ByteBuffer half = first.duplicate();
            half.limit(first.position() + first.remaining() / 3);
            delegate.write(half);
            throw new IOException("No space left on device");
        }
        long written = delegate.write(srcs, offset, length);
        positionsAfterWrites.add(delegate.position());
        return written;
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        return (int) write(new ByteBuffer[] {src}, 0, 1);
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        return delegate.read(dst);
    }

    @Override
    public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
        return delegate.read(dsts, offset, length);
    }

    @Override
    public long position() throws IOException {
        return delegate.position();
    }

    @Override
    public FileChannel position(long newPosition) throws IOException {
        delegate.position(newPosition);
        return this;
    }

    @Override
    public long size() throws IOException {
        return delegate.size();
    }

    @Override
    public FileChannel truncate(long size) throws IOException {
        delegate.truncate(size);
        return this;
    }

    @Override
    public void force(boolean metaData) throws IOException {
        delegate.force(metaData);
        positionsForced.add(delegate.position());
    }

    @Override
    public long transferTo(long position, long count, WritableByteChannel target) throws IOException {
        throw new UnsupportedOperationException();
    }

    @Override
    public long transferFrom(ReadableByteChannel src, long position, long count) throws IOException {
        throw new UnsupportedOperationException();
    }

    @Override
    public int read(ByteBuffer dst, long position) throws IOException {
        return delegate.read(dst, position);
    }

    @Override
    public int write(ByteBuffer src, long position) throws IOException {
        throw new UnsupportedOperationException("the job event writer only appends");
    }

    @Override
    public MappedByteBuffer map(MapMode mode, long position, long size) throws IOException {
        throw new UnsupportedOperationException();
    }

    @Override
    public FileLock lock(long position, long size, boolean shared) throws IOException {
        throw new UnsupportedOperationException();
    }

    @Override
    public FileLock tryLock(long position, long size, boolean shared) throws IOException {
        throw new UnsupportedOperationException();
    }

    @Override
    protected void implCloseChannel() throws IOException {
        delegate.close();
    }
}
