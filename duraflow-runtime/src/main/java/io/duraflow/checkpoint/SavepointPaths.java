package io.duraflow.checkpoint;

import io.duraflow.fs.FileStatus;
import io.duraflow.fs.FileSystem;
import io.duraflow.fs.FileSystems;
import io.duraflow.fs.FsPath;
import io.duraflow.state.CheckpointDirectories;
import java.io.IOException;
import java.nio.file.NoSuchFileException;

/**
 * What a user's {@code --from-savepoint PATH} names, checked before a job is accepted.
 *
 * <ol>
 *   <li>PATH is a path or a file system URI of a file system Duraflow knows.</li>
 *   <li>A directory (a savepoint {@code savepoint-<job>-<n>/}, or a retained checkpoint
 *       {@code chk-<n>/} of any job) names the {@code _metadata} inside it; a directory without
 *       one is not a savepoint or checkpoint.</li>
 *   <li>A file is taken for a {@code _metadata} file, whatever its name.</li>
 *   <li>The {@code _metadata} must read back whole ({@link CheckpointMetadataFormat}): a torn or
 *       corrupt file is an error naming it.</li>
 * </ol>
 * Every error is an {@link InvalidRestorePathException} whose message is one line naming the path
 * and saying what to give instead.
 */
public final class SavepointPaths {
    private SavepointPaths() {
    }

    /** A {@code --from-savepoint} path that does not name a readable savepoint or checkpoint. */
    public static final class InvalidRestorePathException extends IOException {
        public InvalidRestorePathException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** Rules 1-3: the {@code _metadata} file {@code path} names. */
    public static FsPath metadataFile(String path) throws InvalidRestorePathException {
        FsPath location;
        FileSystem fileSystem;
        try {
            location = FsPath.parse(path);
            fileSystem = FileSystems.get(location);
        } catch (IllegalArgumentException e) {
            throw new InvalidRestorePathException("cannot restore from '" + path + "': " + e.getMessage(), e);
        }
        FileStatus status;
        try {
            status = fileSystem.status(location);
        } catch (NoSuchFileException e) {
            throw new InvalidRestorePathException("no savepoint or checkpoint at " + location
                    + ": it does not exist; give a savepoint directory, a retained chk-<n> directory or its _metadata", e);
        } catch (IOException e) {
            throw new InvalidRestorePathException("cannot read " + location + ": " + e.getMessage(), e);
        }
        if (!status.isDirectory()) {
            return location;
        }
        FsPath metadata = location.resolve(CheckpointDirectories.METADATA_FILE);
        try {
            if (!fileSystem.exists(metadata)) {
                throw new InvalidRestorePathException(location + " is not a savepoint or checkpoint: it has no "
                        + CheckpointDirectories.METADATA_FILE + " (a checkpoint that never completed, or another"
                        + " directory); give a savepoint directory, a retained chk-<n> directory or its _metadata",
                        null);
            }
        } catch (InvalidRestorePathException e) {
            throw e;
        } catch (IOException e) {
            throw new InvalidRestorePathException("cannot read " + metadata + ": " + e.getMessage(), e);
        }
        return metadata;
    }

    /** Rules 1-4: the savepoint or checkpoint {@code path} names, read. */
    public static CompletedCheckpoint read(String path) throws InvalidRestorePathException {
        FsPath metadata = metadataFile(path);
        try {
            return CheckpointMetadataFormat.read(FileSystems.get(metadata), metadata);
        } catch (IOException e) {
            // CorruptCheckpointFileException names the file and the reason already.
            throw new InvalidRestorePathException(e instanceof CorruptCheckpointFileException ? e.getMessage()
                    : "cannot read " + metadata + ": " + e.getMessage(), e);
        }
    }
}
