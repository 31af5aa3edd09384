package io.duraflow.state.storage;

import io.duraflow.config.Configuration;
import io.duraflow.config.StateOptions;
import io.duraflow.fs.FileSystem;
import io.duraflow.fs.FileSystems;
import io.duraflow.fs.FsPath;
import io.duraflow.state.CheckpointDirectories;
import java.util.Objects;

/**
 * The checkpoint storage of one job on a file system: hands out the {@link CheckpointStreamFactory}
 * of each checkpoint. A task makes one from the checkpoint directory and job id it is given.
 */
public final class FsCheckpointStorage {
    private final FileSystem fileSystem;
    private final CheckpointDirectories directories;
    private final int inlineThresholdBytes;

    public FsCheckpointStorage(FileSystem fileSystem, CheckpointDirectories directories, int inlineThresholdBytes) {
        this.fileSystem = Objects.requireNonNull(fileSystem, "fileSystem");
        this.directories = Objects.requireNonNull(directories, "directories");
        if (inlineThresholdBytes < 0) {
            throw new IllegalArgumentException("negative inline threshold " + inlineThresholdBytes);
        }
        this.inlineThresholdBytes = inlineThresholdBytes;
    }

    /** The storage of job {@code jobId} under {@code checkpointsRoot}, inlining as {@code state.storage.inline-threshold} says. */
    public static FsCheckpointStorage create(FsPath checkpointsRoot, String jobId, Configuration configuration) {
        return new FsCheckpointStorage(FileSystems.get(checkpointsRoot), CheckpointDirectories.of(checkpointsRoot, jobId),
                (int) configuration.get(StateOptions.INLINE_THRESHOLD).bytes());
    }

    public CheckpointStreamFactory streamFactory(long checkpointId) {
        return FsCheckpointStreamFactory.forCheckpoint(fileSystem, directories, checkpointId, inlineThresholdBytes);
    }

    /**
     * The factory of a savepoint: every stream, exclusive or shared, becomes a file directly in the
     * savepoint's own directory (on whatever file system that is), so the savepoint refers to no
     * file outside it and its directory can be moved.
     */
    public CheckpointStreamFactory savepointStreamFactory(FsPath savepointDirectory) {
        return new FsCheckpointStreamFactory(FileSystems.get(savepointDirectory), savepointDirectory,
                savepointDirectory, inlineThresholdBytes, () -> java.util.UUID.randomUUID().toString());
    }

    public CheckpointDirectories directories() {
        return directories;
    }

    public FileSystem fileSystem() {
        return fileSystem;
    }

    public int inlineThresholdBytes() {
        return inlineThresholdBytes;
    }
}
