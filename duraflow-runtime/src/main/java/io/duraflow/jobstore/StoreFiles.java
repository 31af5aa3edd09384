package io.duraflow.jobstore;

import io.duraflow.fs.FileStatus;
import io.duraflow.fs.FileSystem;
import io.duraflow.fs.FsPath;
import io.duraflow.fs.WriteMode;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * File operations of the stores on a {@link FileSystem}, chosen so that they stay correct where
 * rename is not atomic (object stores): files are created {@link WriteMode#EXCLUSIVE exclusively}
 * or written under a temp name and then renamed, and no reader ever depends on the rename being
 * atomic. Temp names start with a dot and end with {@code .tmp}; job ids never start with a dot,
 * so readers, which only look at {@code <jobId>.<suffix>} names, never see them. Nothing here
 * turns an I/O error into "absent".
 */
final class StoreFiles {
    private final FileSystem fileSystem;

    StoreFiles(FileSystem fileSystem) {
        this.fileSystem = Objects.requireNonNull(fileSystem, "fileSystem");
    }

    /** Whether the file exists; errors other than "no such file" are thrown. */
    boolean exists(FsPath file) throws IOException {
        return fileSystem.exists(file);
    }

    /** The file's bytes, or empty if it does not exist (also if it disappears while we look). */
    Optional<byte[]> readIfExists(FsPath file) throws IOException {
        return fileSystem.readFileIfExists(file);
    }

    /**
     * Creates {@code file} with these bytes and syncs it, creating its directory if needed. If
     * writing fails after the file was created, the partial file is deleted.
     *
     * @throws FileAlreadyExistsException if the file exists: exactly one of several concurrent
     *     creators succeeds, also across processes
     */
    void createNew(FsPath file, byte[] bytes) throws IOException {
        fileSystem.writeFile(file, bytes, WriteMode.EXCLUSIVE);
    }

    /**
     * Writes the bytes to a temp file next to {@code file}, syncs it and renames it to {@code file}.
     * The rename need not be atomic: readers never see the temp name, and the target never appears
     * partially written.
     *
     * @param replace whether an existing {@code file} is replaced
     * @return false if {@code file} exists and {@code replace} is false; nothing is written then
     */
    boolean writeViaTemp(FsPath file, byte[] bytes, boolean replace) throws IOException {
        FsPath temp = file.parent().resolve("." + file.name() + "." + UUID.randomUUID() + ".tmp");
        fileSystem.writeFile(temp, bytes, WriteMode.EXCLUSIVE);
        try {
            fileSystem.rename(temp, file, replace ? WriteMode.OVERWRITE : WriteMode.EXCLUSIVE);
        } catch (FileAlreadyExistsException e) {
            fileSystem.delete(temp);
            return false;
        } catch (IOException | RuntimeException e) {
            try {
                fileSystem.delete(temp);
            } catch (IOException | RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
        return true;
    }

    /** Deletes the file if it exists, durably; returns whether it existed. */
    boolean delete(FsPath file) throws IOException {
        return fileSystem.delete(file);
    }

    /** Names of the entries of the directory, sorted, or none if it does not exist (it is created lazily). */
    List<String> fileNames(FsPath directory) throws IOException {
        List<String> names = new ArrayList<>();
        for (FileStatus status : fileSystem.listIfExists(directory)) {
            names.add(status.path().name());
        }
        names.sort(null);
        return names;
    }
}
