package io.duraflow.checkpoint;

import io.duraflow.fs.FileSystem;
import io.duraflow.fs.FileSystems;
import io.duraflow.fs.FsPath;
import io.duraflow.state.CheckpointDirectories;
import java.util.ArrayList;
import java.util.List;

/**
 * What a restore by the {@link CheckpointRestorer} (its rules 1 and 2) reads from storage, on
 * the coordinator's sequential I/O executor: the retained checkpoints, where the failure window
 * starts, the files a restore may have to delete, and the id the next checkpoint gets. The
 * restorer applies the result on the main thread.
 */
final class RestoreRead {
    private RestoreRead() {}

    /**
     * @param sharedFiles the files under {@code shared/} and {@code taskowned/}
     * @param fileMergingDirectories the directories right below them
     * @param initial the initial restore's checkpoint if the job has none of its own, else null
     * @param windowStartMs where the failure window starts ({@link CheckpointFailureManager} rule 7):
     *     the later of the recorded start and the latest retained checkpoint's completion
     */
    record Recovered(List<CompletedCheckpoint> retained, List<FsPath> sharedFiles,
            List<FsPath> fileMergingDirectories, List<String> warnings,
            CompletedCheckpoint initial, long nextId, long windowStartMs) {}

    /**
     * @param initial what the job restores while it has no checkpoint of its own, or null
     * @param adopting a new leader adopts running tasks: their files are not listed (none is deleted)
     * @param nowMs recorded as the failure window's start if none is recorded yet (the job's first start)
     */
    static Recovered read(CompletedCheckpointStore store, CheckpointIdCounter idCounter, FileSystem fileSystem,
            CheckpointDirectories directories, InitialRestore initial, boolean adopting, long nowMs) throws Exception {
        List<CompletedCheckpoint> retained = store.recover();
        long windowStartMs = store.failureWindowStart(nowMs);
        // Listed before the coordinator draws an id (the I/O executor is sequential): every
        // file here belongs to a retained checkpoint or to one that can never complete.
        List<FsPath> shared = new ArrayList<>();
        List<FsPath> fileMergingDirectories = List.of();
        if (!adopting) {
            shared.addAll(CheckpointDirectoryScan.filesUnder(fileSystem, directories.shared()));
            shared.addAll(CheckpointDirectoryScan.filesUnder(fileSystem, directories.taskOwned()));
            fileMergingDirectories = CheckpointDirectoryScan.fileMergingDirectories(fileSystem, directories);
        }
        CompletedCheckpoint restored = null;
        if (!retained.isEmpty()) {
            CompletedCheckpoint latest = retained.get(retained.size() - 1);
            idCounter.continueFrom(latest.checkpointId() + 1);
            windowStartMs = Math.max(windowStartMs, latest.completedMs());
        } else if (initial != null) {
            restored = CheckpointMetadataFormat.read(FileSystems.get(initial.metadataFile()), initial.metadataFile());
            idCounter.continueFrom(restored.checkpointId() + 1);
        }
        return new Recovered(retained, shared, fileMergingDirectories, store.recoveryWarnings(), restored,
                idCounter.get(), windowStartMs);
    }
}
