package io.duraflow.checkpoint;

import io.duraflow.fs.FsPath;
import io.duraflow.state.FileSegmentHandle;
import io.duraflow.state.IncrementalKeyedStateHandle;
import io.duraflow.state.KeyedStateHandle;
import io.duraflow.state.OperatorStateHandle;
import io.duraflow.state.OperatorSubtaskState;
import io.duraflow.state.StreamStateHandle;
import io.duraflow.state.TaskStateSnapshot;
import java.util.HashSet;
import java.util.Set;

/**
 * The files one task's snapshot points to, split into those it uploaded itself and the shared
 * files an earlier checkpoint uploaded that it only {@linkplain IncrementalKeyedStateHandle.SharedFile#reused()
 * reuses}, and the bytes it uploaded. A file counts once however many segments of it the snapshot
 * uses; a file both uploaded and marked reused (never written by a correct backend) counts as
 * uploaded, so it is never taken for someone else's.
 *
 * @param uploaded files this snapshot wrote: what a discarded snapshot may lose
 * @param reused shared files of earlier checkpoints: what must still exist (the registry checks it)
 * @param checkpointedSize the bytes this snapshot wrote (reused files left out)
 * @param fileMergingDirectories the file-merging directories the task named (checkpoint file merging)
 */
record SnapshotFiles(Set<FsPath> uploaded, Set<FsPath> reused, long checkpointedSize,
        Set<FsPath> fileMergingDirectories) {
    static final SnapshotFiles NONE = new SnapshotFiles(Set.of(), Set.of(), 0, Set.of());

    SnapshotFiles(Set<FsPath> uploaded, Set<FsPath> reused, long checkpointedSize) {
        this(uploaded, reused, checkpointedSize, Set.of());
    }

    SnapshotFiles {
        fileMergingDirectories = Set.copyOf(fileMergingDirectories);
        uploaded = Set.copyOf(uploaded);
        Set<FsPath> onlyReused = new HashSet<>(reused);
        onlyReused.removeAll(uploaded);
        reused = Set.copyOf(onlyReused);
    }

    static SnapshotFiles of(TaskStateSnapshot snapshot) {
        Set<FsPath> uploaded = new HashSet<>();
        Set<FsPath> reused = new HashSet<>();
        long checkpointedSize = 0;
        for (OperatorSubtaskState state : snapshot.operators().values()) {
            for (KeyedStateHandle handle : state.keyedState()) {
                checkpointedSize += handle.checkpointedSize();
                if (handle instanceof IncrementalKeyedStateHandle incremental) {
                    for (IncrementalKeyedStateHandle.SharedFile file : incremental.sharedFiles()) {
                        addFile(file.handle(), file.reused() ? reused : uploaded);
                    }
                    for (IncrementalKeyedStateHandle.PrivateFile file : incremental.privateFiles()) {
                        addFile(file.handle(), uploaded);
                    }
                    addFile(incremental.metaData(), uploaded);
                } else {
                    for (StreamStateHandle stream : handle.streams()) {
                        addFile(stream, uploaded);
                    }
                }
            }
            for (OperatorStateHandle handle : state.operatorState()) {
                checkpointedSize += handle.stream().length();
                addFile(handle.stream(), uploaded);
            }
        }
        return new SnapshotFiles(uploaded, reused, checkpointedSize, snapshot.fileMergingDirectories());
    }

    /** Every file the snapshot points to. */
    Set<FsPath> all() {
        Set<FsPath> all = new HashSet<>(uploaded);
        all.addAll(reused);
        return all;
    }

    private static void addFile(StreamStateHandle handle, Set<FsPath> files) {
        if (handle instanceof FileSegmentHandle segment) {
            files.add(segment.file());
        }
    }
}
