package io.duraflow.fs;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.FileAlreadyExistsException;
import java.util.List;

/**
 * The local file system with an object store's rename: a copy of the bytes to the target, then a
 * delete of the source; not atomic. A test can make the next rename fail between the two steps,
 * the way a crash would leave it (a complete target and the source both present). It shows that
 * code does not rely on an atomic rename; it passes the file-system contract too.
 */
public final class CopyingRenameFileSystem implements FileSystem {
    private final FileSystem local = LocalFileSystem.INSTANCE;
    private volatile boolean failNextRenameAfterCopy;

    /** The next rename copies, then throws instead of deleting the source. */
    public void failNextRenameAfterCopy() {
        failNextRenameAfterCopy = true;
    }

    @Override
    public String scheme() {
        return local.scheme();
    }

    @Override
    public boolean isRenameAtomic() {
        return false;
    }

    @Override
    public void rename(FsPath source, FsPath target, WriteMode mode) throws IOException {
        byte[] bytes = local.readFile(source);
        if (mode == WriteMode.EXCLUSIVE && local.exists(target)) {
            throw new FileAlreadyExistsException(target.toString());
        }
        // An object store publishes the copy whole: write it under another name, then move it in.
        FsPath staging = target.parent().resolve(".copy-" + target.name() + "-" + System.nanoTime());
        local.writeFile(staging, bytes, WriteMode.EXCLUSIVE);
        local.rename(staging, target, WriteMode.OVERWRITE);
        if (failNextRenameAfterCopy) {
            failNextRenameAfterCopy = false;
            throw new IOException("injected crash between copying " + source + " to " + target + " and deleting it");
        }
        local.delete(source);
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
        return local.create(file, mode);
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
        return local.delete(path);
    }

    @Override
    public boolean deleteRecursively(FsPath path) throws IOException {
        return local.deleteRecursively(path);
    }
}
