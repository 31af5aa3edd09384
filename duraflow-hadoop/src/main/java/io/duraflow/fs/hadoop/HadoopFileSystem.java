package io.duraflow.fs.hadoop;

import io.duraflow.fs.FileStatus;
import io.duraflow.fs.FileSystem;
import io.duraflow.fs.FsOutputStream;
import io.duraflow.fs.FsPath;
import io.duraflow.fs.WriteMode;
import java.io.EOFException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileContext;
import org.apache.hadoop.fs.Options;
import org.apache.hadoop.fs.ParentNotDirectoryException;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.PathIsNotEmptyDirectoryException;
import org.apache.hadoop.hdfs.client.HdfsDataOutputStream;

/**
 * A {@link FileSystem} on a Hadoop file system ({@code hdfs://}): one Hadoop {@code FileSystem} and
 * a {@link FileContext} per {@code scheme://authority/}. What the contract's promises are on HDFS,
 * and how Hadoop's exceptions map: see docs/design/file-systems.md#hadoopfilesystem.
 */
public final class HadoopFileSystem implements FileSystem {
    /** What the NameNode answers a create of a file another writer is creating right now. */
    private static final String ALREADY_BEING_CREATED = "org.apache.hadoop.hdfs.protocol.AlreadyBeingCreatedException";

    private final String scheme;
    private final URI root;
    private final org.apache.hadoop.fs.FileSystem hadoop;
    private final FileContext context;

    /**
     * @param root {@code scheme://authority/} of the file system
     * @param configuration Hadoop's configuration (core-site.xml, hdfs-site.xml)
     */
    public HadoopFileSystem(URI root, Configuration configuration) throws IOException {
        this.root = Objects.requireNonNull(root, "root");
        this.scheme = root.getScheme();
        this.hadoop = org.apache.hadoop.fs.FileSystem.newInstance(root, configuration);
        this.context = FileContext.getFileContext(root, configuration);
    }

    /** The Hadoop file system underneath, for tests and for code that must use Hadoop's API. */
    public org.apache.hadoop.fs.FileSystem hadoop() {
        return hadoop;
    }

    @Override
    public String scheme() {
        return scheme;
    }

    @Override
    public boolean isRenameAtomic() {
        return "hdfs".equals(scheme);
    }

    @Override
    public InputStream open(FsPath file) throws IOException {
        try {
            return hadoop.open(path(file));
        } catch (FileNotFoundException e) {
            throw noSuchFile(file, e);
        }
    }

    @Override
    public InputStream open(FsPath file, long offset, long lengthBytes) throws IOException {
        if (offset < 0 || lengthBytes < 0) {
            throw new IllegalArgumentException("negative range: offset " + offset + ", length " + lengthBytes
                    + " of " + file);
        }
        long size = status(file).lengthBytes();
        if (size - offset < lengthBytes) {
            throw new EOFException(file + " has " + size + " bytes, so it has no range of " + lengthBytes
                    + " bytes from offset " + offset);
        }
        FSDataInputStream in = (FSDataInputStream) open(file);
        try {
            in.seek(offset);
        } catch (IOException | RuntimeException e) {
            try {
                in.close();
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
        return new RangeInputStream(in, file, lengthBytes);
    }

    @Override
    public FsOutputStream create(FsPath file, WriteMode mode) throws IOException {
        Path path = path(file);
        FsPath parent = file.parent();
        if (parent != null) {
            mkdirs(parent);
        }
        org.apache.hadoop.fs.FileStatus existing = statusOrNull(path);
        if (existing != null && existing.isDirectory()) {
            throw new FileSystemException(file.toString(), null, "is a directory, so it cannot be created as a file");
        }
        try {
            return new HadoopOutputStream(hadoop.create(path, mode == WriteMode.OVERWRITE));
        } catch (org.apache.hadoop.fs.FileAlreadyExistsException e) {
            if (isDirectory(path)) {
                throw new FileSystemException(file.toString(), null, "is a directory, so it cannot be created as a file");
            }
            throw new FileAlreadyExistsException(file.toString(), null, e.getMessage());
        } catch (ParentNotDirectoryException e) {
            throw notDirectory(file, e);
        } catch (FileNotFoundException e) {
            // The parent was deleted between mkdirs and create.
            throw noSuchFile(parent == null ? file : parent, e);
        } catch (org.apache.hadoop.ipc.RemoteException e) {
            if (mode == WriteMode.EXCLUSIVE && ALREADY_BEING_CREATED.equals(e.getClassName())) {
                // Another creator (another client, or another thread of this one) holds the new file's lease.
                throw new FileAlreadyExistsException(file.toString(), null, "being created by another writer");
            }
            throw e;
        }
    }

    @Override
    public FileStatus status(FsPath path) throws IOException {
        try {
            return status(path, hadoop.getFileStatus(path(path)));
        } catch (FileNotFoundException e) {
            throw noSuchFile(path, e);
        }
    }

    @Override
    public List<FileStatus> list(FsPath directory) throws IOException {
        if (!status(directory).isDirectory()) {
            throw new NotDirectoryException(directory + " is a file, not a directory");
        }
        org.apache.hadoop.fs.FileStatus[] children;
        try {
            children = hadoop.listStatus(path(directory));
        } catch (FileNotFoundException e) {
            throw noSuchFile(directory, e);
        }
        List<FileStatus> entries = new ArrayList<>(children.length);
        for (org.apache.hadoop.fs.FileStatus child : children) {
            entries.add(status(directory.resolve(child.getPath().getName()), child));
        }
        entries.sort(Comparator.comparing(status -> status.path().name()));
        return entries;
    }

    @Override
    public void mkdirs(FsPath directory) throws IOException {
        Path path = path(directory);
        try {
            if (!hadoop.mkdirs(path)) {
                throw new IOException("the Hadoop file system did not create " + directory);
            }
        } catch (org.apache.hadoop.fs.FileAlreadyExistsException | ParentNotDirectoryException e) {
            throw notDirectory(firstFileOnTheWay(directory), e);
        }
    }

    @Override
    public boolean delete(FsPath path) throws IOException {
        try {
            return hadoop.delete(path(path), false);
        } catch (PathIsNotEmptyDirectoryException e) {
            throw new DirectoryNotEmptyException(path.toString());
        } catch (FileNotFoundException e) {
            return false;
        } catch (org.apache.hadoop.ipc.RemoteException e) {
            IOException unwrapped = e.unwrapRemoteException(PathIsNotEmptyDirectoryException.class);
            if (unwrapped instanceof PathIsNotEmptyDirectoryException) {
                throw new DirectoryNotEmptyException(path.toString());
            }
            throw e;
        }
    }

    @Override
    public boolean deleteRecursively(FsPath path) throws IOException {
        try {
            return hadoop.delete(path(path), true);
        } catch (FileNotFoundException e) {
            return false;
        }
    }

    @Override
    public void rename(FsPath source, FsPath target, WriteMode mode) throws IOException {
        if (statusOrNull(path(source)) == null) {
            throw new NoSuchFileException(source.toString(), target.toString(), "rename source does not exist");
        }
        FsPath targetParent = target.parent();
        if (targetParent != null) {
            mkdirs(targetParent);
        }
        Options.Rename option = mode == WriteMode.OVERWRITE ? Options.Rename.OVERWRITE : Options.Rename.NONE;
        try {
            context.rename(path(source), path(target), option);
        } catch (org.apache.hadoop.fs.FileAlreadyExistsException e) {
            throw new FileAlreadyExistsException(target.toString(), source.toString(), "rename target exists");
        } catch (FileNotFoundException e) {
            throw new NoSuchFileException(source.toString(), target.toString(), "rename source does not exist");
        } catch (ParentNotDirectoryException e) {
            throw notDirectory(targetParent == null ? target : targetParent, e);
        }
    }

    /** Closes the Hadoop file system (its RPC connections and threads). */
    void close() throws IOException {
        hadoop.close();
    }

    @Override
    public String toString() {
        return "HadoopFileSystem[" + root + "]";
    }

    private Path path(FsPath path) {
        if (!scheme.equals(path.scheme()) || !Objects.equals(root.getAuthority(), path.authority())) {
            throw new IllegalArgumentException(this + " cannot open " + path);
        }
        return new Path(path.toUri());
    }

    private org.apache.hadoop.fs.FileStatus statusOrNull(Path path) throws IOException {
        try {
            return hadoop.getFileStatus(path);
        } catch (FileNotFoundException e) {
            return null;
        }
    }

    private boolean isDirectory(Path path) throws IOException {
        org.apache.hadoop.fs.FileStatus status = statusOrNull(path);
        return status != null && status.isDirectory();
    }

    /** The first ancestor of {@code directory} (or itself) that is a file: what stands in its way. */
    private FsPath firstFileOnTheWay(FsPath directory) throws IOException {
        List<FsPath> chain = new ArrayList<>();
        for (FsPath p = directory; p != null; p = p.parent()) {
            chain.add(0, p);
        }
        for (FsPath p : chain) {
            org.apache.hadoop.fs.FileStatus status = statusOrNull(path(p));
            if (status != null && !status.isDirectory()) {
                return p;
            }
        }
        return directory;
    }

    private static FileStatus status(FsPath path, org.apache.hadoop.fs.FileStatus status) {
        boolean directory = status.isDirectory();
        return new FileStatus(path, directory, directory ? 0 : status.getLen(), status.getModificationTime());
    }

    private static NoSuchFileException noSuchFile(FsPath path, IOException cause) {
        NoSuchFileException e = new NoSuchFileException(path.toString());
        e.initCause(cause);
        return e;
    }

    private static NotDirectoryException notDirectory(FsPath path, IOException cause) {
        NotDirectoryException e = new NotDirectoryException(path + " (a file where a directory should be)");
        e.initCause(cause);
        return e;
    }

    /** Writes through Hadoop's stream; {@link #sync()} is {@code hsync} with the length update. */
    private static final class HadoopOutputStream extends FsOutputStream {
        private final FSDataOutputStream out;

        HadoopOutputStream(FSDataOutputStream out) {
            this.out = out;
        }

        @Override
        public void write(int b) throws IOException {
            out.write(b);
        }

        @Override
        public void write(byte[] bytes, int offset, int length) throws IOException {
            out.write(bytes, offset, length);
        }

        @Override
        public void flush() throws IOException {
            out.hflush();
        }

        @Override
        public long position() {
            return out.getPos();
        }

        @Override
        public void sync() throws IOException {
            if (out instanceof HdfsDataOutputStream hdfs) {
                hdfs.hsync(EnumSet.of(HdfsDataOutputStream.SyncFlag.UPDATE_LENGTH));
            } else {
                out.hsync();
            }
        }

        @Override
        public void close() throws IOException {
            out.close();
        }
    }

    /** Exactly {@code remaining} bytes of a stream positioned at a range's start, then end of stream. */
    private static final class RangeInputStream extends InputStream {
        private final InputStream in;
        private final FsPath file;
        private long remaining;

        RangeInputStream(InputStream in, FsPath file, long length) {
            this.in = in;
            this.file = file;
            this.remaining = length;
        }

        @Override
        public int read() throws IOException {
            if (remaining == 0) {
                return -1;
            }
            int b = in.read();
            if (b < 0) {
                throw truncated();
            }
            remaining--;
            return b;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            if (length == 0) {
                return 0;
            }
            if (remaining == 0) {
                return -1;
            }
            int read = in.read(buffer, offset, (int) Math.min(length, remaining));
            if (read < 0) {
                throw truncated();
            }
            remaining -= read;
            return read;
        }

        @Override
        public void close() throws IOException {
            in.close();
        }

        private EOFException truncated() {
            return new EOFException(file + " ended " + remaining + " bytes before the end of the range being read");
        }
    }
}
