package io.duraflow.fs;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Everything durable in Duraflow goes through this interface, so it can live on the local disk, on
 * HDFS or on an object store; {@link FileSystems} picks an implementation by scheme.
 * Implementations are thread-safe and pass {@code FileSystemContractTest}. Exceptions, durability
 * and concurrency: see docs/design/file-systems.md#filesystem.
 */
public interface FileSystem {
    /** The URI scheme this file system serves, e.g. {@code file}. */
    String scheme();

    /**
     * Whether {@link #rename} is atomic: other readers see the file under the old name or under
     * the new one, never under both or neither, also after a crash. False on object stores, where
     * rename is a copy then a delete: a crash in between leaves both names (the target complete).
     * Code that must be correct everywhere (the stores) commits by writing a new name, not by
     * relying on an atomic rename.
     */
    boolean isRenameAtomic();

    /**
     * Opens a file for reading from its start.
     *
     * @throws NoSuchFileException if it does not exist
     */
    InputStream open(FsPath file) throws IOException;

    /**
     * Opens a range of a file, e.g. one segment of a merged checkpoint file. The stream returns
     * exactly {@code lengthBytes} bytes from {@code offset} and then end of stream.
     *
     * @throws NoSuchFileException if the file does not exist
     * @throws EOFException naming the file if it ends before {@code offset + lengthBytes}: thrown
     *     by this method or, at the latest, by the read that reaches the end; never a silently
     *     short range
     * @throws IllegalArgumentException if {@code offset} or {@code lengthBytes} is negative
     */
    InputStream open(FsPath file, long offset, long lengthBytes) throws IOException;

    /**
     * Creates a file for writing, and any missing parent directories.
     *
     * @param mode {@link WriteMode#EXCLUSIVE}: exactly one of several concurrent creators wins
     *     (the others get {@link FileAlreadyExistsException}); {@link WriteMode#OVERWRITE}: an
     *     existing file is truncated (until the new bytes are synced, a crash may leave neither
     *     the old nor the new contents: use a temporary name and {@link #rename} where that matters)
     * @throws NotDirectoryException if a file is where a parent directory should be
     * @throws java.nio.file.FileSystemException (never {@link FileAlreadyExistsException}) if
     *     {@code file} is a directory
     */
    FsOutputStream create(FsPath file, WriteMode mode) throws IOException;

    /**
     * The entry's status.
     *
     * @throws NoSuchFileException if it does not exist
     */
    FileStatus status(FsPath path) throws IOException;

    /** Whether the entry exists; an error while looking is thrown, not read as "absent". */
    default boolean exists(FsPath path) throws IOException {
        try {
            status(path);
            return true;
        } catch (NoSuchFileException e) {
            return false;
        }
    }

    /**
     * The entries directly in a directory, sorted by name. An entry created or deleted while
     * listing may or may not appear.
     *
     * @throws NoSuchFileException if the directory does not exist
     * @throws NotDirectoryException if it is a file
     */
    List<FileStatus> list(FsPath directory) throws IOException;

    /**
     * Creates the directory and any missing parents; nothing if it exists. Object stores, which
     * have no directories, may do nothing at all.
     *
     * @throws NotDirectoryException if a file is in the way (at {@code directory} or a parent)
     */
    void mkdirs(FsPath directory) throws IOException;

    /**
     * Deletes a file or an empty directory. Idempotent.
     *
     * @return whether it existed
     * @throws DirectoryNotEmptyException if it is a directory with entries
     */
    boolean delete(FsPath path) throws IOException;

    /**
     * Deletes a file, or a directory with everything in it (symbolic links are deleted, not
     * followed). Not atomic: a crash or an error may leave part of the tree, and calling again
     * deletes the rest. Idempotent.
     *
     * @return whether anything existed
     */
    boolean deleteRecursively(FsPath path) throws IOException;

    /**
     * Gives a file a new name, creating the target's missing parent directories. Renaming
     * directories is not part of the contract (object stores cannot). Atomic only if
     * {@link #isRenameAtomic()}; the target never appears with partial contents either way.
     *
     * @param mode {@link WriteMode#EXCLUSIVE}: fail if {@code target} exists (on a file system
     *     without atomic rename the check and the rename are separate steps, so a concurrent
     *     creator of {@code target} may be overwritten); {@link WriteMode#OVERWRITE}: replace it
     * @throws NoSuchFileException if {@code source} does not exist
     * @throws FileAlreadyExistsException with {@link WriteMode#EXCLUSIVE} if {@code target} exists
     */
    void rename(FsPath source, FsPath target, WriteMode mode) throws IOException;

    /**
     * Writes a small file whole and durably: creates it, writes the bytes, syncs and closes. If
     * writing fails after the file was created, the partial file is deleted (best effort; a crash
     * can still leave one, so readers of such files check their length or a checksum).
     *
     * @throws FileAlreadyExistsException with {@link WriteMode#EXCLUSIVE} if the file exists
     */
    default void writeFile(FsPath file, byte[] bytes, WriteMode mode) throws IOException {
        FsOutputStream out = create(file, mode);
        try (out) {
            out.write(bytes);
            out.sync();
        } catch (IOException | RuntimeException e) {
            try {
                delete(file);
            } catch (IOException | RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    /**
     * A whole file's bytes.
     *
     * @throws NoSuchFileException if it does not exist
     */
    default byte[] readFile(FsPath file) throws IOException {
        try (InputStream in = open(file)) {
            return in.readAllBytes();
        }
    }

    /** A whole file's bytes, or empty if it does not exist (also if it disappears while being opened). */
    default Optional<byte[]> readFileIfExists(FsPath file) throws IOException {
        try {
            return Optional.of(readFile(file));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
    }

    /** Like {@link #list}, but no entries if the directory does not exist. */
    default List<FileStatus> listIfExists(FsPath directory) throws IOException {
        try {
            return list(directory);
        } catch (NoSuchFileException e) {
            return new ArrayList<>();
        }
    }
}
