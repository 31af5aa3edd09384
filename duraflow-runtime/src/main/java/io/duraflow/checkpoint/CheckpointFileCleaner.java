package io.duraflow.checkpoint;

import io.duraflow.fs.FileStatus;
import io.duraflow.fs.FileSystem;
import io.duraflow.fs.FsPath;
import io.duraflow.state.CheckpointDirectories;
import java.io.IOException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes checkpoint files on the coordinator's I/O executor; the coordinator decides on its main
 * thread what may go. Deletions are idempotent and best effort: a file that cannot be deleted is
 * logged with its path, and {@link #deleteLeftoverCheckpointDirectories} catches directories left
 * behind at the next completion.
 */
final class CheckpointFileCleaner {
    private static final Logger LOG = LoggerFactory.getLogger(CheckpointFileCleaner.class);
    private static final Pattern CHECKPOINT_DIRECTORY = Pattern.compile("chk-([0-9]{1,18})");

    private final String jobId;
    private final FileSystem fileSystem;
    private final CheckpointDirectories directories;
    private final Executor io;

    CheckpointFileCleaner(String jobId, FileSystem fileSystem, CheckpointDirectories directories, Executor io) {
        this.jobId = jobId;
        this.fileSystem = fileSystem;
        this.directories = directories;
        this.io = io;
    }

    /** Deletes the files, then the directories with everything in them. */
    void delete(List<FsPath> files, List<FsPath> directoriesToDelete) {
        delete(files, directoriesToDelete, List.of());
    }

    /**
     * Deletes the files, then the directories with everything in them, then those of {@code
     * directoriesIfEmpty} that are empty by then (a claimed checkpoint's directory, whose files
     * later checkpoints may still use).
     */
    void delete(List<FsPath> files, List<FsPath> directoriesToDelete, List<FsPath> directoriesIfEmpty) {
        if (files.isEmpty() && directoriesToDelete.isEmpty() && directoriesIfEmpty.isEmpty()) {
            return;
        }
        List<FsPath> filesCopy = List.copyOf(files);
        List<FsPath> directoriesCopy = List.copyOf(directoriesToDelete);
        List<FsPath> ifEmptyCopy = List.copyOf(directoriesIfEmpty);
        io.execute(() -> {
            deleteNow(filesCopy, directoriesCopy);
            for (FsPath directory : ifEmptyCopy) {
                try {
                    if (fileSystem.listIfExists(directory).isEmpty()) {
                        fileSystem.delete(directory);
                    }
                } catch (IOException | RuntimeException e) {
                    LOG.info("Keeping claimed checkpoint directory {}: {}", directory, e.toString());
                }
            }
        });
    }

    private void deleteNow(List<FsPath> filesCopy, List<FsPath> directoriesCopy) {
        for (FsPath file : filesCopy) {
            try {
                fileSystem.delete(file);
            } catch (IOException | RuntimeException e) {
                LOG.warn("Cannot delete checkpoint file {}: {}", file, e.toString());
            }
        }
        for (FsPath directory : directoriesCopy) {
            try {
                fileSystem.deleteRecursively(directory);
            } catch (IOException | RuntimeException e) {
                LOG.warn("Cannot delete checkpoint directory {}: {}", directory, e.toString());
            }
        }
    }

    /** Deletes the files of earlier runs that {@code sweep} finds late ({@link EarlierRunSweep}). */
    void sweepEarlierRuns(EarlierRunSweep sweep, EarlierRunSweep.Due due) {
        io.execute(() -> {
            try {
                List<FsPath> late = sweep.lateFiles(fileSystem, directories, due);
                if (!late.isEmpty()) {
                    LOG.info("Job {}: deleting {} merged checkpoint file(s) that tasks of an earlier run wrote after"
                            + " the restore and no checkpoint refers to, e.g. {}", jobId, late.size(), late.get(0));
                    deleteNow(late, List.of());
                }
            } catch (IOException | RuntimeException e) {
                LOG.warn("Job {}: cannot look for merged files of earlier runs: {}", jobId, e.toString());
            }
        });
    }

    /**
     * Deletes the job's {@code chk-<n>} directories with {@code n < completedId} not in {@code
     * keep}: what a task wrote after its checkpoint was aborted, or what a crashed JobManager left.
     */
    void deleteLeftoverCheckpointDirectories(long completedId, Set<Long> keep) {
        Set<Long> keepCopy = Set.copyOf(keep);
        io.execute(() -> {
            try {
                for (FileStatus status : fileSystem.listIfExists(directories.jobDirectory())) {
                    Matcher name = CHECKPOINT_DIRECTORY.matcher(status.path().name());
                    if (name.matches()) {
                        long id = Long.parseLong(name.group(1));
                        if (id < completedId && !keepCopy.contains(id)) {
                            LOG.info("Deleting leftover checkpoint directory {}", status.path());
                            fileSystem.deleteRecursively(status.path());
                        }
                    }
                }
            } catch (IOException | RuntimeException e) {
                LOG.warn("Cannot clean up leftover checkpoint directories of job {}: {}", jobId, e.toString());
            }
        });
    }

    /** Whether {@code file} lies below {@code directory}. */
    static boolean isUnder(FsPath file, FsPath directory) {
        for (FsPath dir = file.parent(); dir != null; dir = dir.parent()) {
            if (dir.equals(directory)) {
                return true;
            }
        }
        return false;
    }
}
