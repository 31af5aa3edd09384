package io.duraflow.checkpoint;

import io.duraflow.fs.FsPath;
import io.duraflow.state.CheckpointDirectories;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Decides on the {@link CheckpointCoordinator}'s main thread which checkpoint files and
 * directories may go (the deletions of its rules 3, 4, 5 and 7), from which checkpoint uses which
 * file ({@link StateFileRegistry}); the {@link CheckpointFileCleaner} deletes them on the I/O
 * executor.
 *
 * <p>Rules:
 * <ol>
 *   <li>A file goes when the last pending or retained checkpoint that uses it is dropped, never
 *       before; files under {@code taskowned/} never go (their TaskManager owns them).</li>
 *   <li>An aborted checkpoint's directory goes with it; a subsumed checkpoint's directory goes
 *       when it leaves the store.</li>
 *   <li>A completed savepoint's files are released without deletion: the job never deletes them.</li>
 *   <li>A discarded snapshot (late or unexpected acknowledgement) loses only the files no
 *       checkpoint uses.</li>
 *   <li>A {@code chk-<n>} directory is garbage when {@code n} was drawn by this coordinator and is
 *       neither pending nor retained (ids never repeat): a late task re-created it, or a crashed
 *       JobManager left it.</li>
 * </ol>
 */
final class CheckpointFileDisposal {
    private final CheckpointDirectories directories;
    private final StateFileRegistry files;
    private final CheckpointFileCleaner cleaner;

    CheckpointFileDisposal(CheckpointDirectories directories, CheckpointFileCleaner cleaner) {
        this.directories = directories;
        this.files = new StateFileRegistry(directories.taskOwned());
        this.cleaner = cleaner;
    }

    /** Checkpoint {@code checkpointId} accepted a snapshot that uses {@code snapshotFiles}. */
    void register(long checkpointId, Set<FsPath> snapshotFiles) {
        files.register(checkpointId, snapshotFiles);
    }

    /** After a restore from the completed store: the retained checkpoints use exactly their files. */
    void restore(List<CompletedCheckpoint> retained) {
        for (CompletedCheckpoint checkpoint : retained) {
            files.release(checkpoint.checkpointId());
            files.register(checkpoint.checkpointId(), StateFileRegistry.filesOf(checkpoint));
        }
    }

    /** Deletes what an aborted checkpoint wrote: its directory and the files nothing else uses. */
    void onAborted(long checkpointId, FsPath directory) {
        List<FsPath> unused = files.release(checkpointId);
        cleaner.delete(unused, List.of(directory));
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
        for (CompletedCheckpoint old : subsumed) {
            unused.addAll(files.release(old.checkpointId()));
            directoriesToDelete.add(old.directory());
        }
        cleaner.delete(unused, directoriesToDelete);
        cleaner.deleteLeftoverCheckpointDirectories(completedId, live);
    }

    /** Deletes those of a discarded snapshot's files that no checkpoint refers to. */
    void discardUnreferenced(Set<FsPath> snapshotFiles) {
        List<FsPath> unused = new ArrayList<>();
        FsPath taskOwned = directories.taskOwned();
        for (FsPath file : snapshotFiles) {
            if (!files.isReferenced(file) && !CheckpointFileCleaner.isUnder(file, taskOwned)) {
                unused.add(file);
            }
        }
        cleaner.delete(unused, List.of());
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
