package io.duraflow.state;

import io.duraflow.fs.FsPath;
import java.util.Objects;

/**
 * Where a job's checkpoints live under {@code execution.checkpointing.dir}: {@code chk-<n>/},
 * {@code shared/}, {@code taskowned/} and the file-merging directories below them. See
 * docs/design/checkpoint-files.md#checkpointdirectories.
 */
public record CheckpointDirectories(FsPath jobDirectory) {
    public static final String METADATA_FILE = "_metadata";

    public CheckpointDirectories {
        Objects.requireNonNull(jobDirectory, "jobDirectory");
    }

    public static CheckpointDirectories of(FsPath checkpointsRoot, String jobId) {
        return new CheckpointDirectories(checkpointsRoot.resolve(jobId));
    }

    public FsPath checkpoint(long checkpointId) {
        return jobDirectory.resolve("chk-" + checkpointId);
    }

    public FsPath metadata(long checkpointId) {
        return checkpoint(checkpointId).resolve(METADATA_FILE);
    }

    public FsPath shared() {
        return jobDirectory.resolve("shared");
    }

    public FsPath taskOwned() {
        return jobDirectory.resolve("taskowned");
    }

    /** The file-merging directory of one subtask's incremental state: {@code shared/<name>}. */
    public FsPath sharedFileMergingDirectory(String name) {
        return shared().resolve(name);
    }

    /** The file-merging directory of one run of a TaskManager's private state: {@code taskowned/<name>}. */
    public FsPath taskOwnedFileMergingDirectory(String name) {
        return taskOwned().resolve(name);
    }

    /**
     * The file-merging directory {@code path} lies in (directly), or null: a file whose parent is a
     * directory right below {@code shared/} or {@code taskowned/} of this job. Files directly in
     * {@code shared/} (incremental state without merging) are in none.
     */
    public FsPath fileMergingDirectoryOf(FsPath path) {
        FsPath parent = path.parent();
        if (parent == null) {
            return null;
        }
        FsPath grandParent = parent.parent();
        return grandParent != null && (grandParent.equals(shared()) || grandParent.equals(taskOwned())) ? parent : null;
    }

    /**
     * Whether {@code path} lies directly in a file-merging directory of any job's checkpoint
     * directory ({@code <dir>/<job>/shared/<name>/<file>} or {@code .../taskowned/<name>/<file>}): a
     * merged file, possibly of another job whose checkpoint was restored.
     */
    public static boolean isMergedFile(FsPath path) {
        FsPath parent = path.parent();
        FsPath grandParent = parent == null ? null : parent.parent();
        return grandParent != null && grandParent.parent() != null
                && (grandParent.name().equals("shared") || grandParent.name().equals("taskowned"));
    }

    /** Whether {@code directory} is a file-merging directory of this job (right below {@code shared/} or {@code taskowned/}). */
    public boolean isFileMergingDirectory(FsPath directory) {
        FsPath parent = directory.parent();
        return parent != null && (parent.equals(shared()) || parent.equals(taskOwned()));
    }
}
