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
 * file-merging directories ({@link CheckpointFileDisposal} rule 7 adopts only what the listing saw).
 * A new leader that does not adopt a job's kept tasks cancels them and restores at once; until
 * they stop, they go on writing (an in-flight checkpoint's SST files into {@code shared/...}, its
 * private state into their run's {@code taskowned/...}). No checkpoint that can still complete
 * refers to those files, and no TaskManager deletes them if a task sent its acknowledgement (the
 * checkpoint might have completed), so without this they would stay until the job ends.
 *
 * <p>Rules:
 * <ol>
 *   <li><b>Earlier run.</b> A file in a file-merging directory whose name says it was created for
 *       a checkpoint below the first id drawn after the restore ({@link MergedFileNames}) was
 *       written by an earlier run: a run's TaskManagers create files only for checkpoints of the
 *       coordinator that restored it, and ids never repeat. Files the restore listed are left to
 *       adoption; files without an id in their name (written before ids were in names) are left
 *       alone.</li>
 *   <li><b>Deleted</b> once no retained or pending checkpoint refers to it and no writer appended
 *       to it between two sweeps (same length): a cancelled task may still be writing, and on an
 *       object store a file deleted before its writer closed it would appear again.</li>
 *   <li><b>When.</b> After every restore that does not adopt the running tasks, at each of the
 *       first {@value #EVERY_COMPLETION} completed checkpoints (cancelled tasks stop within
 *       seconds, so most late files appear then and go two completions later), then at the 16th,
 *       32nd, 64th, ...: a later file is found within about twice the completions it took to
 *       appear, and a long-running job lists its directories a logarithmic number of times. An
 *       adopting restore stops the sweeps: the adopted run's own files carry ids below the next
 *       one.</li>
 * </ol>
 * The arming and timing live on the coordinator's main thread; {@link #lateFiles} runs on the
 * sequential I/O executor, which alone touches the lengths seen.
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
