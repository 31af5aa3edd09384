package io.duraflow.state.filemerging;

import io.duraflow.fs.FileSystem;
import io.duraflow.fs.FsPath;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The deletions a {@link FileMergingSnapshotManager} decided, run on its deleter executor: merged
 * files once no live segment is in them, then the run's directories that may be left empty. The
 * executor runs tasks one at a time, in order, so a directory is looked at after the files in it
 * went. A deletion that fails is logged, not retried.
 */
final class MergedFileDeleter {
    private static final Logger LOG = LoggerFactory.getLogger(MergedFileDeleter.class);

    private final String jobId;
    private final FileSystem fileSystem;
    private final Executor deleter;

    MergedFileDeleter(String jobId, FileSystem fileSystem, Executor deleter) {
        this.jobId = jobId;
        this.fileSystem = fileSystem;
        this.deleter = deleter;
    }

    /** Deletes {@code files}, created by the manager and closed with no live segment ({@link SegmentLedger#collectDeletable()}). */
    void deleteFiles(List<PhysicalFile> files) {
        if (files.isEmpty()) {
            return;
        }
        List<FsPath> paths = files.stream().map(file -> file.path).toList();
        deleter.execute(() -> {
            for (FsPath path : paths) {
                try {
                    fileSystem.delete(path);
                } catch (IOException | RuntimeException e) {
                    LOG.warn("Job {}: cannot delete merged checkpoint file {}: {}", jobId, path, e.toString());
                }
            }
        });
    }

    /**
     * Deletes those of {@code directories} that are empty, after the files deleted before: a
     * directory no acknowledgement that may complete named holds nothing any checkpoint refers to;
     * one of a restored subtask may hold adopted files, so only empty ones go.
     */
    void deleteIfEmpty(List<FsPath> directories) {
        if (directories.isEmpty()) {
            return;
        }
        deleter.execute(() -> {
            for (FsPath directory : directories) {
                try {
                    if (fileSystem.listIfExists(directory).isEmpty()) {
                        fileSystem.delete(directory);
                    }
                } catch (IOException | RuntimeException e) {
                    LOG.info("Job {}: keeping file-merging directory {}: {}", jobId, directory, e.toString());
                }
            }
        });
    }
}
