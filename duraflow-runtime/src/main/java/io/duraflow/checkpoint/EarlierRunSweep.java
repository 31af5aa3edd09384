package io.duraflow.checkpoint;

import io.duraflow.fs.FileStatus;
import io.duraflow.fs.FileSystem;
import io.duraflow.fs.FsPath;
import io.duraflow.state.CheckpointDirectories;
import io.duraflow.state.filemerging.MergedFileNames;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Finds the merged files that tasks of an earlier run wrote after a restore listed the job's
 * file-merging directories. Arming and timing on the coordinator's main thread; {@link #lateFiles}
 * on the sequential I/O executor. Its rules: see docs/design/checkpoint-cleanup.md#earlierrunsweep.
 */
final class EarlierRunSweep {
    /** Rule 3: completions after a restore that each sweep. */
    static final int EVERY_COMPLETION = 8;

    /** Main thread: the first checkpoint id of the restored run; negative: no sweeps. */
    private long firstIdOfRun = -1;
    /** Main thread: the files the restore listed (adopted there). */
    private Set<FsPath> listedAtRestore = Set.of();
    /** Main thread: completions since the restore. */
    private long completions;

    /** I/O executor: lengths of earlier runs' unreferenced files at the last sweep, for {@link #firstIdSeen}. */
    private Map<FsPath, Long> seenLengths = new HashMap<>();
    private long firstIdSeen = -1;

    /**
     * Main thread: the job restored; its run draws ids from {@code firstIdOfRun} on (negative: it
     * adopted the running tasks, which go on writing their own files: no sweeps).
     */
    void restored(long firstIdOfRun, Set<FsPath> listed) {
        this.firstIdOfRun = firstIdOfRun;
        this.listedAtRestore = firstIdOfRun < 0 ? Set.of() : Set.copyOf(listed);
        this.completions = 0;
    }

    /** Main thread, at a completion: the sweep to run now on the I/O executor, or null (rule 3). */
    Due dueAtCompletion(Set<FsPath> referenced) {
        if (firstIdOfRun < 0) {
            return null;
        }
        completions++;
        boolean due = completions <= EVERY_COMPLETION || Long.bitCount(completions) == 1;
        return due ? new Due(firstIdOfRun, listedAtRestore, Set.copyOf(referenced)) : null;
    }

    /**
     * @param firstIdOfRun ids from here on are the current run's
     * @param listed files the restore listed
     * @param referenced files a retained or pending checkpoint referred to at the completion
     */
    record Due(long firstIdOfRun, Set<FsPath> listed, Set<FsPath> referenced) {}

    /** I/O executor: the files of earlier runs to delete now (rules 1 and 2). */
    List<FsPath> lateFiles(FileSystem fileSystem, CheckpointDirectories directories, Due due) throws IOException {
        if (due.firstIdOfRun() != firstIdSeen) {
            seenLengths = new HashMap<>();
            firstIdSeen = due.firstIdOfRun();
        }
        Map<FsPath, Long> now = new HashMap<>();
        List<FsPath> late = new ArrayList<>();
        for (FsPath parent : List.of(directories.shared(), directories.taskOwned())) {
            for (FileStatus directory : fileSystem.listIfExists(parent)) {
                if (!directory.isDirectory()) {
                    continue;
                }
                for (FileStatus file : fileSystem.listIfExists(directory.path())) {
                    OptionalLong createdFor = MergedFileNames.createdFor(file.path().name());
                    if (file.isDirectory() || createdFor.isEmpty() || createdFor.getAsLong() >= due.firstIdOfRun()
                            || due.listed().contains(file.path()) || due.referenced().contains(file.path())) {
                        continue;
                    }
                    Long before = seenLengths.get(file.path());
                    if (before != null && before == file.lengthBytes()) {
                        late.add(file.path());
                    } else {
                        now.put(file.path(), file.lengthBytes());
                    }
                }
            }
        }
        seenLengths = now;
        late.sort(java.util.Comparator.comparing(FsPath::toString));
        return late;
    }
}
