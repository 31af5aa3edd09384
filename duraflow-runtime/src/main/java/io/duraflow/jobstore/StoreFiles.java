package io.duraflow.jobstore;

import io.duraflow.fs.FileStatus;
import io.duraflow.fs.FileSystem;
import io.duraflow.fs.FsPath;
import io.duraflow.fs.WriteMode;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The file operations of the stores that {@link FileSystem} itself lacks. The stores stay correct
 * where rename is not atomic (object stores): files are created {@link WriteMode#EXCLUSIVE
 * exclusively} ({@link FileSystem#writeFile}) or written under a temp name and then renamed
 * ({@link #writeViaTemp}), and no reader ever depends on the rename being atomic. Temp names start with a dot and end with {@code .tmp}; job ids never start with a dot,
 * so readers, which only look at {@code <jobId>.<suffix>} names, never see them. Nothing here
 * turns an I/O error into "absent".
 */
final class StoreFiles {
    private StoreFiles() {}

    /**
     * Writes the bytes to a temp file next to {@code file}, syncs it and renames it to {@code file}.
     * The rename need not be atomic: readers never see the temp name, and the target never appears
     * partially written.
     *
     * @param replace whether an existing {@code file} is replaced
     * @return false if {@code file} exists and {@code replace} is false; nothing is written then
     */
    static boolean writeViaTemp(FileSystem fileSystem, FsPath file, byte[] bytes, boolean replace) throws IOException {
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

    /**
     * Names of the entries of the directory, sorted ({@link FileSystem#list} sorts), or none if it
     * does not exist (it is created lazily).
     */
    static List<String> fileNames(FileSystem fileSystem, FsPath directory) throws IOException {
        List<String> names = new ArrayList<>();
        for (FileStatus status : fileSystem.listIfExists(directory)) {
            names.add(status.path().name());
        }
        return names;
    }
}
