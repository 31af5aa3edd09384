package io.duraflow.fs;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The {@link FileSystem} of the local disk ({@code file:} and plain paths), on {@code java.nio}.
 *
 * <p>Durability: {@link FsOutputStream#sync()} is {@link FileChannel#force force(false)}
 * ({@code fdatasync}: the data and the length, not the modification time) and, the first time,
 * an {@code fsync} of the parent directory so that the new name survives too. {@link #mkdirs},
 * {@link #delete}, {@link #deleteRecursively} and {@link #rename} sync the directories whose
 * entries they changed. Syncing a directory is best effort: some platforms and file systems
 * cannot open a directory for it, and there nothing more can be done.
 *
 * <p>Rename is atomic ({@code rename(2)}); source and target must be on one mounted file system.
 */
public final class LocalFileSystem implements FileSystem {
    /** The one instance; it has no state. */
    public static final LocalFileSystem INSTANCE = new LocalFileSystem();

    private LocalFileSystem() {
    }

    @Override
    public String scheme() {
        return FsPath.LOCAL_SCHEME;
    }

    @Override
    public boolean isRenameAtomic() {
        return true;
    }

    @Override
    public InputStream open(FsPath file) throws IOException {
        return Files.newInputStream(local(file));
    }

    @Override
    public InputStream open(FsPath file, long offset, long lengthBytes) throws IOException {
        if (offset < 0 || lengthBytes < 0) {
            throw new IllegalArgumentException("negative range: offset " + offset + ", length " + lengthBytes
                    + " of " + file);
        }
        FileChannel channel = FileChannel.open(local(file), StandardOpenOption.READ);
        try {
            long size = channel.size();
            if (size - offset < lengthBytes) {
                throw new EOFException(file + " has " + size + " bytes, so it has no range of " + lengthBytes
                        + " bytes from offset " + offset);
            }
            channel.position(offset);
        } catch (IOException | RuntimeException e) {
            closeQuietly(channel, e);
            throw e;
        }
        return new RangeInputStream(Channels.newInputStream(channel), file, lengthBytes);
    }

    @Override
    public FsOutputStream create(FsPath file, WriteMode mode) throws IOException {
        Path path = local(file);
        Path parent = path.getParent();
        if (parent != null) {
            mkdirs(file.parent());
        }
        if (Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) {
            throw new FileSystemException(file.toString(), null, "is a directory, so it cannot be created as a file");
        }
        FileChannel channel = mode == WriteMode.EXCLUSIVE
                ? FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)
                : FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                        StandardOpenOption.TRUNCATE_EXISTING);
        return new LocalOutputStream(channel, parent);
    }

    @Override
    public FileStatus status(FsPath path) throws IOException {
        BasicFileAttributes attributes = Files.readAttributes(local(path), BasicFileAttributes.class);
        return status(path, attributes);
    }

    @Override
    public List<FileStatus> list(FsPath directory) throws IOException {
        List<FileStatus> entries = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(local(directory))) {
            for (Path entry : stream) {
                FsPath child = directory.resolve(entry.getFileName().toString());
                try {
                    entries.add(status(child, Files.readAttributes(entry, BasicFileAttributes.class,
                            LinkOption.NOFOLLOW_LINKS)));
                } catch (NoSuchFileException e) {
                    // Deleted while we listed: the contract allows leaving it out.
                }
            }
        }
        entries.sort(Comparator.comparing(status -> status.path().name()));
        return entries;
    }

    @Override
    public void mkdirs(FsPath directory) throws IOException {
        Path path = local(directory);
        if (Files.isDirectory(path)) {
            return;
        }
        // Create from the first missing ancestor down, syncing each new entry's parent, so that a
        // file created in the directory later is not lost with a directory that was not durable.
        List<Path> missing = new ArrayList<>();
        for (Path p = path; p != null && !Files.isDirectory(p); p = p.getParent()) {
            if (Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
                if (Files.isDirectory(p)) {
                    break; // another thread or process created it since the check above
                }
                throw new NotDirectoryException(FsPath.of(p) + " (a file where a directory of " + directory
                        + " should be)");
            }
            missing.add(0, p);
        }
        for (Path p : missing) {
            try {
                Files.createDirectory(p);
            } catch (FileAlreadyExistsException e) {
                if (!Files.isDirectory(p)) {
                    // A file appeared there meanwhile; FileAlreadyExists would read as "target exists".
                    throw new NotDirectoryException(FsPath.of(p) + " (a file where a directory of " + directory
                            + " should be)");
                }
                continue; // another process created it; it syncs the parent
            }
            syncDirectory(p.getParent());
        }
    }

    @Override
    public boolean delete(FsPath path) throws IOException {
        Path local = local(path);
        boolean deleted = Files.deleteIfExists(local);
        if (deleted) {
            syncDirectory(local.getParent());
        }
        return deleted;
    }

    @Override
    public boolean deleteRecursively(FsPath path) throws IOException {
        Path local = local(path);
        BasicFileAttributes attributes;
        try {
            attributes = Files.readAttributes(local, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return false;
        }
        if (attributes.isDirectory()) {
            deleteChildren(local);
        }
        Files.deleteIfExists(local);
        syncDirectory(local.getParent());
        return true;
    }

    @Override
    public void rename(FsPath source, FsPath target, WriteMode mode) throws IOException {
        Path from = local(source);
        Path to = local(target);
        if (!Files.exists(from, LinkOption.NOFOLLOW_LINKS)) {
            throw new NoSuchFileException(source.toString(), target.toString(), "rename source does not exist");
        }
        if (to.getParent() != null) {
            mkdirs(target.parent());
        }
        if (mode == WriteMode.OVERWRITE) {
            Files.move(from, to, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } else {
            // Files.move without REPLACE_EXISTING checks and renames separately (rename(2) itself
            // replaces), so a concurrent creator could be overwritten; a hard link does both at once.
            try {
                Files.createLink(to, from);
            } catch (UnsupportedOperationException | FileSystemException e) {
                if (e instanceof FileAlreadyExistsException) {
                    throw e;
                }
                // No hard links here: fall back to the check-then-move that Files.move does.
                Files.move(from, to);
                syncDirectories(from.getParent(), to.getParent());
                return;
            }
            Files.delete(from);
        }
        syncDirectories(from.getParent(), to.getParent());
    }

    @Override
    public String toString() {
        return "LocalFileSystem";
    }

    private static Path local(FsPath path) {
        if (!path.isLocal()) {
            throw new IllegalArgumentException("the local file system cannot open " + path);
        }
        return path.toLocalPath();
    }

    private static FileStatus status(FsPath path, BasicFileAttributes attributes) {
        boolean directory = attributes.isDirectory();
        return new FileStatus(path, directory, directory ? 0 : attributes.size(),
                attributes.lastModifiedTime().toMillis());
    }

    private static void deleteChildren(Path directory) throws IOException {
        List<Path> children = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(directory)) {
            stream.forEach(children::add);
        } catch (NoSuchFileException e) {
            return;
        }
        for (Path child : children) {
            BasicFileAttributes attributes;
            try {
                attributes = Files.readAttributes(child, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            } catch (NoSuchFileException e) {
                continue;
            }
            if (attributes.isDirectory()) {
                deleteChildren(child);
            }
            Files.deleteIfExists(child);
        }
    }

    private static void syncDirectories(Path first, Path second) {
        syncDirectory(first);
        if (second != null && !second.equals(first)) {
            syncDirectory(second);
        }
    }

    /** Makes created, renamed or deleted names in the directory durable; best effort, see the class comment. */
    static void syncDirectory(Path directory) {
        if (directory == null) {
            return;
        }
        try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ)) {
            channel.force(true);
        } catch (IOException | UnsupportedOperationException e) {
            // Not supported here; file contents are synced by the streams themselves.
        }
    }

    private static void closeQuietly(AutoCloseable closeable, Exception cause) {
        try {
            closeable.close();
        } catch (Exception e) {
            cause.addSuppressed(e);
        }
    }

    /** Writes straight to the channel: no buffer of its own, so each write call is one write to the file. */
    private static final class LocalOutputStream extends FsOutputStream {
        private final FileChannel channel;
        private final Path directory;
        private boolean directorySynced;

        LocalOutputStream(FileChannel channel, Path directory) {
            this.channel = channel;
            this.directory = directory;
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] bytes, int offset, int length) throws IOException {
            ByteBuffer buffer = ByteBuffer.wrap(bytes, offset, length);
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
        }

        @Override
        public long position() throws IOException {
            return channel.position();
        }

        @Override
        public void sync() throws IOException {
            channel.force(false);
            if (!directorySynced) {
                syncDirectory(directory);
                directorySynced = true;
            }
        }

        @Override
        public void close() throws IOException {
            channel.close();
        }
    }

    /** Exactly {@code remaining} bytes of the underlying stream, or EOFException naming the file. */
    private static final class RangeInputStream extends InputStream {
        private final InputStream in;
        private final FsPath file;
        private long remaining;

        RangeInputStream(InputStream in, FsPath file, long lengthBytes) {
            this.in = in;
            this.file = file;
            this.remaining = lengthBytes;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) == 1 ? one[0] & 0xff : -1;
        }

        @Override
        public int read(byte[] bytes, int offset, int length) throws IOException {
            if (length == 0) {
                return 0;
            }
            if (remaining == 0) {
                return -1;
            }
            int n = in.read(bytes, offset, (int) Math.min(length, remaining));
            if (n < 0) {
                throw new EOFException(file + " ended with " + remaining + " bytes of the range still to read"
                        + " (truncated while reading?)");
            }
            remaining -= n;
            return n;
        }

        @Override
        public long skip(long n) throws IOException {
            long skipped = in.skip(Math.min(Math.max(n, 0), remaining));
            remaining -= skipped;
            return skipped;
        }

        @Override
        public int available() throws IOException {
            return (int) Math.min(in.available(), remaining);
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }
}
