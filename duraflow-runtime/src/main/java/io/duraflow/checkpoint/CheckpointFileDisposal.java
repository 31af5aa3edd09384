package io.duraflow.checkpoint;

import io.duraflow.fs.FsPath;
import io.duraflow.state.CheckpointDirectories;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Decides on the {@link CheckpointCoordinator}'s main thread which checkpoint files and directories
 * may go; the {@link CheckpointFileCleaner} deletes them on the I/O executor. Its rules, numbered
 * as tests and code refer to them: see docs/design/checkpoint-cleanup.md#checkpointfiledisposal.
 */
final class CheckpointFileDisposal {
    private final CheckpointDirectories directories;
    private final StateFileRegistry files;
    private final CheckpointFileCleaner cleaner;
    /** Directories of checkpoints restored with {@code --claim}: deleted when subsumed. */
    private final Set<FsPath> claimedDirectories = new java.util.HashSet<>();
    /** Job directories of checkpoints restored with {@code --claim} (another job's): emptied as their files go. */
    private final Set<FsPath> claimedJobDirectories = new java.util.HashSet<>();
    /** Rule 9: merged files earlier runs wrote after the restore's listing. */
    private final EarlierRunSweep earlierRuns = new EarlierRunSweep();

    CheckpointFileDisposal(CheckpointDirectories directories, CheckpointFileCleaner cleaner) {
        this.directories = directories;
        this.files = new StateFileRegistry(directories);
        this.cleaner = cleaner;
    }

    /** Checkpoint {@code checkpointId} accepted a snapshot that uses {@code snapshotFiles}. */
    void register(long checkpointId, Set<FsPath> snapshotFiles) {
        files.register(checkpointId, snapshotFiles);
    }

    /**
     * Checkpoint {@code checkpointId} accepted {@code task}'s snapshot: registers its files, and
     * says why the checkpoint must fail if the snapshot reuses shared files no retained or pending
     * checkpoint refers to ({@link CheckpointFailureReason#MISSING_SHARED_STATE}: they may be gone).
     * The snapshot's own uploads are registered either way, so they go when the abort releases
     * them; the unknown files are not, so no later snapshot passes this check with them.
     */
    Optional<CheckpointFailure> registerAcknowledged(long checkpointId, CheckpointTask task, SnapshotFiles snapshot) {
        List<FsPath> unknown = files.unknown(snapshot.reused());
        Set<FsPath> known = snapshot.all();
        unknown.forEach(known::remove);
        files.register(checkpointId, known);
        files.name(checkpointId, snapshot.fileMergingDirectories());
        if (unknown.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new CheckpointFailure(checkpointId, CheckpointFailureReason.MISSING_SHARED_STATE,
                "the snapshot of " + task + " reuses shared file " + unknown.get(0) + (unknown.size() > 1 ? " and "
                + (unknown.size() - 1) + " more" : "") + " that no retained or pending checkpoint refers to (it may"
                + " be deleted): the task based it on a checkpoint that is gone; its next snapshot after a completion"
                + " notification uploads them again", task.toString()));
    }

    /** After a restore from the completed store: the retained checkpoints use exactly their files. */
    void restore(List<CompletedCheckpoint> retained) {
        files.rebuild(retained);
    }

    /**
     * Rule 7: after {@link #restore}, adopts the listed files in file-merging directories (no task
     * writes them any more), deletes the listed files nobody refers to, then the private-state
     * file-merging directories of earlier runs that are empty and that no retained or pending
     * checkpoint names, and, if {@code directoriesToo}, every {@code chk-<n>} directory not in
     * {@code live}. A subtask of the restored run may already write into a shared directory of
     * the same name (its own), so those are left to rule 8 and the job's end.
     *
     * @param listedFiles the files under {@code shared/} and {@code taskowned/}, listed before this
     *     coordinator drew an id
     * @param listedDirectories the file-merging directories, listed with them
     */
    void deleteOrphansAfterRestore(List<FsPath> listedFiles, List<FsPath> listedDirectories, Set<Long> live,
            boolean directoriesToo) {
        deleteOrphansAfterRestore(listedFiles, listedDirectories, live, directoriesToo, -1);
    }

    /**
     * As above, and rule 9 from then on: the restored run draws checkpoint ids from {@code
     * firstIdOfRun} on (negative: the restore adopted the running tasks).
     */
    void deleteOrphansAfterRestore(List<FsPath> listedFiles, List<FsPath> listedDirectories, Set<Long> live,
            boolean directoriesToo, long firstIdOfRun) {
        earlierRuns.restored(firstIdOfRun, new java.util.HashSet<>(listedFiles));
        Set<FsPath> unnamedDirectories = new java.util.TreeSet<>(java.util.Comparator.comparing(FsPath::toString));
        List<FsPath> candidates = new ArrayList<>(listedDirectories);
        for (FsPath file : listedFiles) {
            FsPath directory = directories.fileMergingDirectoryOf(file);
            if (directory != null) {
                candidates.add(directory);
            }
        }
        for (FsPath directory : candidates) {
            // A subtask of the restored run writes into its shared directory again (same name), so
            // only the private directories of earlier runs may go here; the others go when unnamed
            // after a subsumption (rule 8) or with the job.
            if (!files.isNamed(directory) && CheckpointFileCleaner.isUnder(directory, directories.taskOwned())) {
                unnamedDirectories.add(directory);
            }
        }
        files.adopt(listedFiles);
        List<FsPath> orphans = files.unreferencedOwned(listedFiles);
        files.forgetAdopted(orphans);
        cleaner.delete(orphans, List.of(), List.copyOf(unnamedDirectories));
        if (directoriesToo) {
            cleaner.deleteLeftoverCheckpointDirectories(Long.MAX_VALUE, live);
        }
    }

    /** The claimed files of a checkpoint restored with {@code --claim}: the job deletes them once unused. */
    void claim(CompletedCheckpoint restored) {
        files.claim(StateFileRegistry.filesOf(restored));
        claimedDirectories.add(restored.directory());
        FsPath claimedJob = restored.directory().parent();
        if (claimedJob != null && !claimedJob.equals(directories.jobDirectory())) {
            claimedJobDirectories.add(claimedJob);
        }
    }

    /**
     * Rule 2: the directories a claimed file leaves behind, deepest first, up to and with the
     * claimed checkpoint's job directory ({@code shared/subtask-...}, {@code shared/}, the job's):
     * deleted only if empty, since later checkpoints may still use other claimed files there.
     */
    private List<FsPath> emptiedClaimedDirectories(List<FsPath> deletedFiles) {
        Set<FsPath> parents = new java.util.TreeSet<>(java.util.Comparator.comparingInt((FsPath path) ->
                path.toString().length()).reversed().thenComparing(FsPath::toString));
        for (FsPath file : deletedFiles) {
            for (FsPath job : claimedJobDirectories) {
                if (CheckpointFileCleaner.isUnder(file, job)) {
                    for (FsPath dir = file.parent(); dir != null && !dir.equals(job.parent()); dir = dir.parent()) {
                        parents.add(dir);
                    }
                }
            }
        }
        return new ArrayList<>(parents);
    }

    StateFileRegistry registry() {
        return files;
    }

    /** Deletes what an aborted checkpoint wrote: its directory and the files nothing else uses. */
    void onAborted(long checkpointId, FsPath directory) {
        List<FsPath> unused = files.release(checkpointId);
        cleaner.delete(unused, List.of(directory), emptiedClaimedDirectories(unused));
    }

    void onSavepointCompleted(long savepointId) {
        files.release(savepointId); // the job never deletes a savepoint's files
    }

    /**
     * Checkpoint {@code completedId} completed and the store dropped {@code subsumed}: deletes
     * their directories and the files no other checkpoint uses, and the leftover {@code chk-<n>}
     * directories older than {@code completedId} not in {@code live}.
     *
     * @param live the ids of the pending and retained checkpoints
     */
    void onCheckpointCompleted(long completedId, List<CompletedCheckpoint> subsumed, Set<Long> live) {
        List<FsPath> unused = new ArrayList<>();
        List<FsPath> directoriesToDelete = new ArrayList<>();
        List<FsPath> claimedToDeleteIfEmpty = new ArrayList<>();
        for (CompletedCheckpoint old : subsumed) {
            StateFileRegistry.Released released = files.releaseSubsumed(old.checkpointId());
            unused.addAll(released.files());
            // Rule 8: a file-merging directory no retained or pending checkpoint names any more.
            directoriesToDelete.addAll(released.directories());
            if (CheckpointFileCleaner.isUnder(old.directory(), directories.jobDirectory())) {
                directoriesToDelete.add(old.directory());
            } else if (claimedDirectories.remove(old.directory())) {
                // Rule 2: a claimed restore's files go through the registry (later checkpoints may
                // reuse some of them), so not its whole directory: its metadata, and the directory
                // if nothing is left in it.
                unused.add(old.metadataFile());
                claimedToDeleteIfEmpty.add(old.directory());
            }
        }
        for (FsPath directory : emptiedClaimedDirectories(unused)) {
            if (!claimedToDeleteIfEmpty.contains(directory)) {
                claimedToDeleteIfEmpty.add(directory);
            }
        }
        cleaner.delete(unused, directoriesToDelete, claimedToDeleteIfEmpty);
        cleaner.deleteLeftoverCheckpointDirectories(completedId, live);
        EarlierRunSweep.Due sweep = earlierRuns.dueAtCompletion(files.referenced());
        if (sweep != null) {
            cleaner.sweepEarlierRuns(earlierRuns, sweep);
        }
    }

    /** Rules 4 and 6: deletes those of the files a discarded snapshot uploaded that the job owns and nobody uses. */
    void discardUnreferenced(SnapshotFiles snapshot) {
        cleaner.delete(files.unreferencedOwned(snapshot.uploaded()), List.of());
    }

    /**
     * A late task may have re-created {@code chk-<n>} of a checkpoint that ended: if it is neither
     * pending nor retained and was drawn by this coordinator (ids never repeat), it is garbage.
     *
     * @param highestTriggeredId the highest id this coordinator drew and started
     * @param live the ids of the pending and retained checkpoints
     */
    void discardDeadDirectory(long checkpointId, long highestTriggeredId, Set<Long> live) {
        if (checkpointId < 1 || checkpointId > highestTriggeredId || live.contains(checkpointId)) {
            return;
        }
        cleaner.delete(List.of(), List.of(directories.checkpoint(checkpointId)));
    }
}
