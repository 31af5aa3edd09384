package io.duraflow.state.filemerging;

import io.duraflow.fs.FileStatus;
import io.duraflow.fs.FileSystem;
import io.duraflow.fs.FsOutputStream;
import io.duraflow.fs.FsPath;
import io.duraflow.fs.LocalFileSystem;
import io.duraflow.fs.WriteMode;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;

/**
 * The local file system, except that a test can make the next write to any open file fail after
 * half its bytes, and that {@code sync} may only flush (fast simulations, where no machine crashes).
 */
final class TestFileSystem implements FileSystem {
    private final FileSystem local = LocalFileSystem.INSTANCE;
    private final boolean syncs;
    private volatile boolean failNextWrite;

    /** @param syncs whether {@code sync} reaches the disk ({@code fdatasync}) or only flushes */
    TestFileSystem(boolean syncs) {
        this.syncs = syncs;
    }

    /** The next write writes half its bytes, then throws (a full disk, a lost data node). */
    void failNextWrite() {
        failNextWrite = true;
    }

    @Override
    public String scheme() {
        return local.scheme();
    }

    @Override
    public boolean isRenameAtomic() {
        return local.isRenameAtomic();
    }

    @Override
    public InputStream open(FsPath file) throws IOException {
        return local.open(file);
    }

    @Override
    public InputStream open(FsPath file, long offset, long lengthBytes) throws IOException {
        return local.open(file, offset, lengthBytes);
    }

    @Override
    public FsOutputStream create(FsPath file, WriteMode mode) throws IOException {
        if (!syncs) {
            // Created here, the parent directories are not synced by the local file system.
            java.nio.file.Files.createDirectories(java.nio.file.Path.of(file.parent().toString()));
        }
        FsOutputStream out = local.create(file, mode);
        return new FsOutputStream() {
            @Override
            public void write(int b) throws IOException {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] bytes, int offset, int count) throws IOException {
                if (failNextWrite) {
                    failNextWrite = false;
                    out.write(bytes, offset, count / 2);
                    throw new IOException("injected write failure on " + file);
                }
                out.write(bytes, offset, count);
            }

            @Override
            public long position() throws IOException {
                return out.position();
            }

            @Override
            public void sync() throws IOException {
                if (syncs) {
                    out.sync();
                } else {
                    out.flush();
                }
            }

            @Override
            public void flush() throws IOException {
                out.flush();
            }

            @Override
            public void close() throws IOException {
                out.close();
            }
        };
    }

    @Override
    public FileStatus status(FsPath path) throws IOException {
        return local.status(path);
    }

    @Override
    public List<FileStatus> list(FsPath directory) throws IOException {
        return local.list(directory);
    }

    @Override
    public void mkdirs(FsPath directory) throws IOException {
        local.mkdirs(directory);
    }

    @Override
    public boolean delete(FsPath path) throws IOException {
        // Without syncs, no directory sync either: the deletion is enough for a test.
        return syncs ? local.delete(path) : java.nio.file.Files.deleteIfExists(java.nio.file.Path.of(path.toString()));
    }

    @Override
    public boolean deleteRecursively(FsPath path) throws IOException {
        return local.deleteRecursively(path);
    }

    @Override
    public void rename(FsPath source, FsPath target, WriteMode mode) throws IOException {
        local.rename(source, target, mode);
    }
}
