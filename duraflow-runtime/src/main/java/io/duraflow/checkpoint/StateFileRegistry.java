package io.duraflow.checkpoint;

import io.duraflow.fs.FsPath;
import io.duraflow.state.FileSegmentHandle;
import io.duraflow.state.KeyedStateHandle;
import io.duraflow.state.OperatorStateHandle;
import io.duraflow.state.OperatorSubtaskState;
import io.duraflow.state.StreamStateHandle;
import io.duraflow.state.TaskStateSnapshot;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which checkpoints refer to which state files, so that a file is deleted exactly when the last
 * checkpoint that uses it (retained, or still pending) is dropped. Lives on the coordinator's main
 * thread; rebuilt from the retained checkpoints after a JobManager failover. This is the seed of
 * issue 11's shared-state registry (incremental files used by several checkpoints).
 *
 * <p>Rules:
 * <ol>
 *   <li>A checkpoint registers every file its handles point to, once per file however many
 *       segments of it it uses.</li>
 *   <li>{@link #release} drops one checkpoint's references and returns the files nobody refers to
 *       any more: the caller deletes those.</li>
 *   <li>Files under the job's {@code taskowned/} directory are never returned: the TaskManager
 *       that wrote them owns them (checkpoint file merging, issue 12).</li>
 *   <li>Files of a savepoint are never registered: the job never deletes a savepoint's files.</li>
 * </ol>
 */
public final class StateFileRegistry {
    private final FsPath taskOwnedDirectory;
    private final Map<FsPath, Set<Long>> users = new HashMap<>();
    private final Map<Long, Set<FsPath>> filesOf = new HashMap<>();

    public StateFileRegistry(FsPath taskOwnedDirectory) {
        this.taskOwnedDirectory = taskOwnedDirectory;
    }

    public void register(long checkpointId, Set<FsPath> files) {
        for (FsPath file : files) {
            if (isTaskOwned(file)) {
                continue;
            }
            users.computeIfAbsent(file, f -> new HashSet<>()).add(checkpointId);
            filesOf.computeIfAbsent(checkpointId, id -> new HashSet<>()).add(file);
        }
    }

    /** Drops checkpoint {@code checkpointId}'s references; the files no checkpoint uses any more, sorted. */
    public List<FsPath> release(long checkpointId) {
        Set<FsPath> files = filesOf.remove(checkpointId);
        if (files == null) {
            return List.of();
        }
        TreeSet<String> unused = new TreeSet<>();
        Map<String, FsPath> byName = new HashMap<>();
        for (FsPath file : files) {
            Set<Long> ids = users.get(file);
            ids.remove(checkpointId);
            if (ids.isEmpty()) {
                users.remove(file);
                unused.add(file.toString());
                byName.put(file.toString(), file);
            }
        }
        List<FsPath> result = new ArrayList<>();
        for (String name : unused) {
            result.add(byName.get(name));
        }
        return result;
    }

    public boolean isReferenced(FsPath file) {
        return users.containsKey(file);
    }

    public int referencedFiles() {
        return users.size();
    }

    private boolean isTaskOwned(FsPath file) {
        for (FsPath dir = file.parent(); dir != null; dir = dir.parent()) {
            if (dir.equals(taskOwnedDirectory)) {
                return true;
            }
        }
        return false;
    }

    /** Every file a task's snapshot points to. */
    public static Set<FsPath> filesOf(TaskStateSnapshot snapshot) {
        Set<FsPath> files = new HashSet<>();
        for (OperatorSubtaskState state : snapshot.operators().values()) {
            addFiles(state, files);
        }
        return files;
    }

    /** Every file a completed checkpoint points to, its metadata excluded. */
    public static Set<FsPath> filesOf(CompletedCheckpoint checkpoint) {
        Set<FsPath> files = new HashSet<>();
        for (OperatorCheckpointState operator : checkpoint.operators().values()) {
            for (OperatorSubtaskState state : operator.subtasks().values()) {
                addFiles(state, files);
            }
        }
        return files;
    }

    private static void addFiles(OperatorSubtaskState state, Set<FsPath> files) {
        for (KeyedStateHandle handle : state.keyedState()) {
            for (StreamStateHandle stream : handle.streams()) {
                addFile(stream, files);
            }
        }
        for (OperatorStateHandle handle : state.operatorState()) {
            addFile(handle.stream(), files);
        }
    }

    private static void addFile(StreamStateHandle handle, Set<FsPath> files) {
        if (handle instanceof FileSegmentHandle segment) {
            files.add(segment.file());
        }
    }
}
