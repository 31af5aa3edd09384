package io.duraflow.state.filemerging;

import io.duraflow.fs.FsPath;
import io.duraflow.state.storage.CheckpointedStateScope;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongPredicate;
import java.util.function.Predicate;

/**
 * The {@link FilePool}s of one run: one per subtask for its incremental state and one for the
 * private state of the run's tasks here (with merging within checkpoints, one of each per
 * checkpoint), their capacity ({@code max-file-pool-size}, {@code max-subtasks-per-file}), and their
 * retirement when their checkpoint or the run ends; it applies {@link FilePool}'s rules when a
 * writer takes a file ({@link #take}), and enters every file it creates in the {@link
 * SegmentLedger}.
 *
 * <p>Threads: none of its own; single-threaded and free of I/O. The {@link
 * FileMergingSnapshotManager} calls it under its lock, waits when it says to, and closes outside the
 * lock the files it detached ({@link #detachForClose}).
 */
final class FilePools {
    private static final String PRIVATE_POOL = "private";

    private final FileMergingSettings settings;
    private final SegmentLedger ledger;
    private final Map<String, FilePool> pools = new HashMap<>();
    /** Subtasks of this run here, for the capacity of the private pool. */
    private final Set<SubtaskKey> subtasks = new HashSet<>();
    /** Shared directories a file was created in. */
    private final Set<FsPath> sharedDirectoriesWritten = new HashSet<>();
    /** Files opened outside a pool at its bound (FilePool rule 3), for the metrics. */
    private long unpooledFiles;

    FilePools(FileMergingSettings settings, SegmentLedger ledger) {
        this.settings = settings;
        this.ledger = ledger;
    }

    /** A task of this run starts here. */
    void register(SubtaskKey subtask) {
        subtasks.add(subtask);
    }

    /**
     * The pool a stream of {@code subtask} with {@code scope} for {@code checkpointId} writes to;
     * with merging within checkpoints, the pool of a checkpoint that {@code ended} is born retired
     * (a late writer of an ended checkpoint: its files close after use).
     */
    FilePool pool(SubtaskKey subtask, CheckpointedStateScope scope, long checkpointId, LongPredicate ended) {
        String base = scope == CheckpointedStateScope.SHARED ? "shared " + subtask : PRIVATE_POOL;
        long poolCheckpoint = settings.acrossCheckpoints() ? -1 : checkpointId;
        String name = poolCheckpoint < 0 ? base : base + " @" + poolCheckpoint;
        FilePool pool = pools.get(name);
        if (pool == null) {
            pool = new FilePool(name, poolCheckpoint, 1, scope == CheckpointedStateScope.SHARED);
            if (poolCheckpoint < 0 || !ended.test(poolCheckpoint)) {
                pools.put(name, pool);
            } else {
                pool.retired = true;
            }
        }
        boolean shared = scope == CheckpointedStateScope.SHARED;
        int perSubtasks = shared ? 1 : Math.max(1, (subtasks.size() + settings.maxSubtasksPerFile() - 1)
                / settings.maxSubtasksPerFile());
        pool.capacity = settings.blockingPool() ? perSubtasks : Math.max(settings.maxFilePoolSize(), perSubtasks);
        pool.maxSubtasksPerFile = shared ? Integer.MAX_VALUE : settings.maxSubtasksPerFile();
        return pool;
    }

    /**
     * FilePool's rules 1 to 3, 5 and 6 for a writer of {@code subtask}'s checkpoint {@code
     * checkpointId} (a large stream if {@code stream}): the file it takes, held by it from now on,
     * or null when it must wait for a file to be given back. A new file (its header not written
     * yet) lies in {@code directory}. Files passed over for good, those the checkpoint would leave
     * {@code wasteful} (rule 5) and idle ones at the bound (rule 3), are closing and detached into
     * {@code toClose}.
     */
    PhysicalFile take(FilePool pool, FsPath directory, SubtaskKey subtask, long checkpointId, boolean stream,
            Predicate<PhysicalFile> wasteful, List<PhysicalFile> toClose) {
        PhysicalFile file = null;
        while (file == null) {
            PhysicalFile candidate = stream ? pool.forStream(subtask) : pool.forAppend(subtask);
            boolean found = candidate != null && candidate != FilePool.NEEDS_WAIT;
            if (found && wasteful.test(candidate)) {
                candidate.closing = true;
                detachForClose(candidate, toClose);
            } else if (found) {
                file = candidate;
            } else if (candidate == FilePool.NEEDS_WAIT) {
                return null;
            } else {
                // Rule 3: open a file below the bound; at it, make room or (non-blocking) go unpooled.
                PhysicalFile idle = pool.mayOpen() ? null : pool.fullestIdle();
                if (idle != null) {
                    idle.closing = true;
                    detachForClose(idle, toClose);
                } else if (pool.mayOpen() || !settings.blockingPool()) {
                    file = newFile(pool, directory, checkpointId);
                } else {
                    return null;
                }
            }
        }
        file.busy = true;
        file.writers.add(subtask);
        file.streaming = stream;
        file.lastTakenFor = Math.max(file.lastTakenFor, checkpointId);
        return file;
    }

    /** A new file for {@code checkpointId}; an unpooled one (the pool at its bound) takes one segment (FilePool rule 3). */
    private PhysicalFile newFile(FilePool pool, FsPath directory, long checkpointId) {
        PhysicalFile file = new PhysicalFile(directory.resolve(MergedFileNames.newName(checkpointId)), pool, true);
        if (pool.mayOpen()) {
            pool.files.add(file);
        } else {
            file.closing = true;
            unpooledFiles++;
        }
        if (pool.shared) {
            sharedDirectoriesWritten.add(directory);
        }
        ledger.fileCreated(file);
        return file;
    }

    /** Within checkpoints: the pools of checkpoints up to {@code checkpointId} take no more segments. */
    void retireUpTo(long checkpointId, List<PhysicalFile> toClose) {
        for (FilePool pool : new ArrayList<>(pools.values())) {
            if (pool.checkpointId >= 0 && pool.checkpointId <= checkpointId) {
                retire(pool, toClose);
            }
        }
    }

    /** Within checkpoints: the pools of checkpoint {@code checkpointId} take no more segments. */
    void retire(long checkpointId, List<PhysicalFile> toClose) {
        for (FilePool pool : new ArrayList<>(pools.values())) {
            if (pool.checkpointId == checkpointId) {
                retire(pool, toClose);
            }
        }
    }

    /** The run ended: every pool takes no more segments. */
    void retireAll(List<PhysicalFile> toClose) {
        for (FilePool pool : new ArrayList<>(pools.values())) {
            retire(pool, toClose);
        }
    }

    private void retire(FilePool pool, List<PhysicalFile> toClose) {
        pool.retired = true;
        pools.values().remove(pool);
        for (PhysicalFile file : new ArrayList<>(pool.files)) {
            file.closing = true;
            if (!file.busy) {
                detachForClose(file, toClose);
            }
        }
    }

    /** Takes the file out of its pool and, if it has a stream or a writer, adds it to {@code toClose}, for closing outside the lock. */
    static void detachForClose(PhysicalFile file, List<PhysicalFile> toClose) {
        if (file.pool != null) {
            file.pool.files.remove(file);
        }
        if (file.out != null || file.busy) {
            toClose.add(file);
        }
    }

    /** Files the pools keep for further segments. */
    int pooledFiles() {
        return pools.values().stream().mapToInt(FilePool::openFiles).sum();
    }

    long unpooledFiles() {
        return unpooledFiles;
    }

    /** Shared directories a file was created in (rule 5 of the manager: some may be deleted at the end of the run). */
    Set<FsPath> sharedDirectoriesWritten() {
        return sharedDirectoriesWritten;
    }
}
