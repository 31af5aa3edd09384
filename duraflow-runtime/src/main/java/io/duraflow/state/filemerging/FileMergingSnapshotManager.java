package io.duraflow.state.filemerging;

import io.duraflow.fs.FileSystem;
import io.duraflow.fs.FsOutputStream;
import io.duraflow.fs.FsPath;
import io.duraflow.fs.WriteMode;
import io.duraflow.state.CheckpointDirectories;
import io.duraflow.state.FileSegmentHandle;
import io.duraflow.state.StreamStateHandle;
import io.duraflow.state.storage.CheckpointStreamFactory;
import io.duraflow.state.storage.CheckpointedStateScope;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.Executor;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checkpoint file merging (seed 003) for one run of one job's tasks on one TaskManager: their
 * checkpoint streams become segments of a few physical files ({@link MergedFileFormat}), which this
 * manager owns and deletes. A run is what the JobManager deploys between two restores; a restore
 * starts a new run, and with it a new manager and a new private-state directory.
 *
 * <p>Where segments go: incremental ({@link CheckpointedStateScope#SHARED}) state of a subtask into
 * {@code shared/<subtask>/} ({@link SubtaskKey#sharedDirectoryName()}), which the same subtask of a
 * later run writes into again; private ({@link CheckpointedStateScope#EXCLUSIVE}) state of all the
 * run's tasks here into {@code taskowned/<taskmanager id>-<run>/}. Savepoints never come here.
 *
 * <p>Rules (each has a test in {@code FileMergingSnapshotManagerTest}):
 * <ol>
 *   <li><b>Segments.</b> A segment is live from its write until a completion notification says
 *       the lowest retained checkpoint is above the last checkpoint that used it (written for, or
 *       reused by: its watermark), or its checkpoint is aborted and nothing reused it. A lost
 *       notification is caught up by the next one, because the lowest retained id only grows.</li>
 *   <li><b>Files.</b> A physical file this manager created is deleted once it is closed and holds
 *       no live segment. A file is closed when it reached {@code max-file-size}, when its
 *       checkpoint ended (merging within checkpoints), when space control picked it, when a write
 *       to it failed, or when the run ends.</li>
 *   <li><b>Reuse.</b> A later checkpoint may refer to a segment again ({@link
 *       MergingStreams#tryReuse}) only while it is live and its file was not picked by space
 *       control; then its watermark moves up. A dead segment is never brought back: its file may be
 *       gone, so the backend uploads the bytes again.</li>
 *   <li><b>Restored files</b> (the state a task of this run restored) are counted for space and
 *       reuse but never deleted here: the JobManager adopted them when the job restored and deletes
 *       each once no checkpoint refers to it. This run never appends to them. Merged files of
 *       another job (its checkpoint restored, claimed or not) are counted too but never reused: the
 *       next checkpoint writes their live state again into this job's files, so they go with the
 *       restored checkpoint (claimed) or stay untouched (not claimed), and no checkpoint of this job
 *       ties another job's directory to its own life.</li>
 *   <li><b>Directories.</b> Every acknowledgement names the directories its task writes into
 *       ({@link #acknowledging}), created or not, so the JobManager never deletes a directory a
 *       running task may still write. When the run ends, the files no sent acknowledgement (not
 *       known aborted) may refer to are deleted here, and so is every directory this run wrote into
 *       that no such acknowledgement named, if it is empty then: the job stopped before its first
 *       checkpoint, or every checkpoint that named it was aborted (the JobManager never deletes a
 *       directory for an aborted checkpoint). The rest is the JobManager's. A stream that completes
 *       after the run ended is dead at once: the run's tasks ended, so no acknowledgement refers to
 *       it.</li>
 *   <li><b>Space.</b> After every completion notification, if the bytes of the files (created and
 *       restored) exceed {@code max-space-amplification} times their live bytes, the files with
 *       most dead bytes are closed and made not reusable until the bytes they would free (with the
 *       dead bytes of files picked before, which are still waiting for their segments to die) bring
 *       the total under the limit: their live incremental segments are uploaded again by the next
 *       checkpoint, their private ones die with it, and then the files go (rule 2). Ahead of that,
 *       across checkpoints: a checkpoint about to append to a subtask's open file that it would
 *       leave above the limit (most of the file holds what the checkpoint no longer refers to, as
 *       after a compaction) takes a new file, so the old one can go once those bytes die, without
 *       writing anything again.</li>
 * </ol>
 *
 * <p>Threads: task threads (stream factories, notifications, restores), snapshot and upload threads
 * (streams). Bookkeeping is guarded by this object's lock; bytes are written outside it by the one
 * writer that holds a file. Deletions run on the given executor.
 */
public final class FileMergingSnapshotManager implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(FileMergingSnapshotManager.class);
    private static final String PRIVATE_POOL = "private";

    private final String jobId;
    private final FileSystem fileSystem;
    private final CheckpointDirectories directories;
    private final FileMergingSettings settings;
    private final Executor deleter;
    private final FsPath privateDirectory;

    /** Every file this manager knows (created, or restored), by path. */
    private final Map<FsPath, PhysicalFile> files = new HashMap<>();
    private final Map<String, FilePool> pools = new HashMap<>();
    /** Subtasks of this run here, for the capacity of the private pool. */
    private final Set<SubtaskKey> subtasks = new HashSet<>();
    /** Shared directories a file was created in. */
    private final Set<FsPath> sharedDirectoriesWritten = new HashSet<>();
    /** Per subtask, the checkpoints it sent an acknowledgement for (pruned below the lowest retained id). */
    private final Map<SubtaskKey, TreeSet<Long>> acknowledged = new HashMap<>();
    /**
     * Subtasks with an acknowledgement pruned while not known aborted: a completed checkpoint may
     * name their directories, which are then the JobManager's (rule 5).
     */
    private final Set<SubtaskKey> namedByCompleted = new HashSet<>();
    /** Checkpoints known aborted (pruned below the lowest retained id). */
    private final TreeSet<Long> abortedCheckpoints = new TreeSet<>();
    private long lowestRetained;
    /** The newest checkpoint a completion notification named (rule 6's look ahead judges only what such checkpoints wrote). */
    private long latestCompleted = -1;
    /** Files opened outside a pool at its bound (FilePool rule 3), for the metrics. */
    private long unpooledFiles;
    private boolean closed;

    public FileMergingSnapshotManager(String jobId, String taskManagerId, String runId, FileSystem fileSystem,
            CheckpointDirectories directories, FileMergingSettings settings, Executor deleter) {
        this.jobId = jobId;
        this.fileSystem = fileSystem;
        this.directories = directories;
        this.settings = settings;
        this.deleter = deleter;
        this.privateDirectory = directories.taskOwnedFileMergingDirectory(taskManagerId + "-" + runId);
    }

    // ------------------------------------------------------------------ tasks of the run

    /** A task of this run starts here. */
    public synchronized void register(SubtaskKey subtask) {
        checkOpen();
        subtasks.add(subtask);
    }

    /** The streams of {@code subtask}'s part of checkpoint {@code checkpointId} (not of a savepoint). */
    public CheckpointStreamFactory streamFactory(SubtaskKey subtask, long checkpointId) {
        return new MergingStreams(this, subtask, checkpointId);
    }

    /**
     * Rule 4: {@code subtask} restored {@code segments} of checkpoint {@code checkpointId}; those in
     * this job's file-merging directories are counted (their files' sizes are read here, on the
     * caller's thread).
     */
    public void restore(SubtaskKey subtask, long checkpointId, List<StreamStateHandle> segments) throws IOException {
        Map<FsPath, Long> sizes = new HashMap<>();
        List<FileSegmentHandle> merged = new ArrayList<>();
        for (StreamStateHandle handle : segments) {
            if (handle instanceof FileSegmentHandle segment && CheckpointDirectories.isMergedFile(segment.file())) {
                merged.add(segment);
                if (!sizes.containsKey(segment.file()) && !knows(segment.file())) {
                    sizes.put(segment.file(), fileSystem.status(segment.file()).lengthBytes());
                }
            }
        }
        synchronized (this) {
            for (FileSegmentHandle handle : merged) {
                PhysicalFile file = files.get(handle.file());
                if (file == null) {
                    file = new PhysicalFile(handle.file(), null, false);
                    file.reusable = directories.fileMergingDirectoryOf(handle.file()) != null; // rule 4: another job's
                    file.size = sizes.getOrDefault(handle.file(), handle.offset() + handle.length());
                    files.put(file.path, file);
                }
                if (!file.segments.containsKey(handle.offset())) {
                    file.segmentAdded(new Segment(file, subtask, handle.offset(), handle.length(), checkpointId));
                }
            }
        }
    }

    private synchronized boolean knows(FsPath file) {
        return files.containsKey(file);
    }

    /**
     * Rule 5: {@code subtask} is about to acknowledge checkpoint {@code checkpointId}; the
     * directories the acknowledgement must name.
     */
    public synchronized Set<FsPath> acknowledging(SubtaskKey subtask, long checkpointId) {
        acknowledged.computeIfAbsent(subtask, key -> new TreeSet<>()).add(checkpointId);
        return Set.of(sharedDirectory(subtask), privateDirectory);
    }

    FsPath sharedDirectory(SubtaskKey subtask) {
        return directories.sharedFileMergingDirectory(subtask.sharedDirectoryName());
    }

    public FsPath privateDirectory() {
        return privateDirectory;
    }

    // ------------------------------------------------------------------ notifications

    /**
     * Checkpoint {@code checkpointId} completed and the retained checkpoints are {@code
     * lowestRetainedId} and above (rule 1); then rule 6. Idempotent; ids that do not raise the
     * lowest retained id change nothing but the end of the checkpoint's pools.
     */
    public void checkpointCompleted(long checkpointId, long lowestRetainedId) {
        List<PhysicalFile> toClose = new ArrayList<>();
        List<PhysicalFile> toDelete = new ArrayList<>();
        synchronized (this) {
            latestCompleted = Math.max(latestCompleted, checkpointId);
            retirePoolsUpTo(checkpointId, toClose);
            if (lowestRetainedId > lowestRetained) {
                lowestRetained = lowestRetainedId;
                acknowledged.forEach((subtask, ids) -> {
                    SortedSet<Long> pruned = ids.headSet(lowestRetainedId);
                    if (!abortedCheckpoints.containsAll(pruned)) {
                        namedByCompleted.add(subtask);
                    }
                    pruned.clear();
                });
                abortedCheckpoints.headSet(lowestRetainedId).clear();
                for (PhysicalFile file : files.values()) {
                    for (Segment segment : file.segments.values()) {
                        if (segment.live && segment.lastUsed < lowestRetainedId) {
                            file.segmentDied(segment);
                        }
                    }
                }
                controlSpace(toClose);
            }
            collectDeletable(toDelete);
            notifyAll();
        }
        closeAndDelete(toClose, toDelete);
    }

    /** Checkpoint {@code checkpointId} will never complete: the segments written for it and used by nothing later die. */
    public void checkpointAborted(long checkpointId) {
        List<PhysicalFile> toClose = new ArrayList<>();
        List<PhysicalFile> toDelete = new ArrayList<>();
        synchronized (this) {
            if (checkpointId < lowestRetained) {
                return;
            }
            abortedCheckpoints.add(checkpointId);
            for (PhysicalFile file : files.values()) {
                for (Segment segment : file.segments.values()) {
                    if (segment.live && segment.createdFor == checkpointId && segment.lastUsed == checkpointId) {
                        file.segmentDied(segment);
                    }
                }
            }
            retirePool(checkpointId, toClose);
            collectDeletable(toDelete);
            notifyAll();
        }
        closeAndDelete(toClose, toDelete);
    }

    /** Within checkpoints: the pools of checkpoints up to {@code checkpointId} take no more segments. */
    private void retirePoolsUpTo(long checkpointId, List<PhysicalFile> toClose) {
        for (FilePool pool : new ArrayList<>(pools.values())) {
            if (pool.checkpointId >= 0 && pool.checkpointId <= checkpointId) {
                retire(pool, toClose);
            }
        }
    }

    private void retirePool(long checkpointId, List<PhysicalFile> toClose) {
        for (FilePool pool : new ArrayList<>(pools.values())) {
            if (pool.checkpointId == checkpointId) {
                retire(pool, toClose);
            }
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

    // ------------------------------------------------------------------ rule 6: space

    /** Bytes of every file known (created or restored), and their live bytes; the files of the pools. */
    public synchronized SpaceUsage spaceUsage() {
        long physical = 0;
        long live = 0;
        int open = 0;
        for (PhysicalFile file : files.values()) {
            physical += file.size;
            live += file.liveBytes;
            open += file.out != null ? 1 : 0;
        }
        int pooled = pools.values().stream().mapToInt(FilePool::openFiles).sum();
        return new SpaceUsage(physical, live, files.size(), open, pooled, unpooledFiles);
    }

    private void controlSpace(List<PhysicalFile> toClose) {
        for (PhysicalFile file : SpaceControl.pick(files.values(), settings, jobId)) {
            if (file.out != null && !file.busy) {
                detachForClose(file, toClose);
            }
        }
    }


    // ------------------------------------------------------------------ writing (MergingStreams)

    /** Rule 3: whether checkpoint {@code checkpointId} may refer to {@code handle} again; if so its watermark moves up. */
    synchronized boolean tryReuse(long checkpointId, StreamStateHandle handle) {
        if (!(handle instanceof FileSegmentHandle segment)) {
            return true;
        }
        PhysicalFile file = files.get(segment.file());
        if (file == null) {
            // Not a merged file of this run (rule 4): a plain file, which the JobManager counts, or no reuse.
            return !CheckpointDirectories.isMergedFile(segment.file());
        }
        Segment known = file.segments.get(segment.offset());
        if (known == null || known.length != segment.length() || !known.live || !file.reusable || file.deleted) {
            return false;
        }
        known.lastUsed = Math.max(known.lastUsed, checkpointId);
        return true;
    }

    /** The pool a stream of {@code subtask} with {@code scope} for {@code checkpointId} writes to. */
    synchronized FilePool pool(SubtaskKey subtask, CheckpointedStateScope scope, long checkpointId) throws IOException {
        checkOpen();
        String base = scope == CheckpointedStateScope.SHARED ? "shared " + subtask : PRIVATE_POOL;
        long poolCheckpoint = settings.acrossCheckpoints() ? -1 : checkpointId;
        String name = poolCheckpoint < 0 ? base : base + " @" + poolCheckpoint;
        FilePool pool = pools.get(name);
        if (pool == null) {
            pool = new FilePool(name, poolCheckpoint, 1, scope == CheckpointedStateScope.SHARED);
            if (poolCheckpoint < 0 || !abortedCheckpoints.contains(poolCheckpoint) && poolCheckpoint >= lowestRetained) {
                pools.put(name, pool);
            } else {
                pool.retired = true; // a late writer of an ended checkpoint: its files close after use
            }
        }
        boolean shared = scope == CheckpointedStateScope.SHARED;
        int perSubtasks = shared ? 1 : Math.max(1, (subtasks.size() + settings.maxSubtasksPerFile() - 1)
                / settings.maxSubtasksPerFile());
        pool.capacity = settings.blockingPool() ? perSubtasks : Math.max(settings.maxFilePoolSize(), perSubtasks);
        pool.maxSubtasksPerFile = shared ? Integer.MAX_VALUE : settings.maxSubtasksPerFile();
        return pool;
    }

    FsPath directoryFor(SubtaskKey subtask, CheckpointedStateScope scope) {
        return scope == CheckpointedStateScope.SHARED ? sharedDirectory(subtask) : privateDirectory;
    }

    /**
     * Takes a file of {@code pool} for one writer ({@link FilePool}'s rules); a new one is created
     * (header written) outside the lock. Blocks while the pool's rules say to wait.
     */
    PhysicalFile take(FilePool pool, FsPath directory, SubtaskKey subtask, long checkpointId, boolean stream)
            throws IOException {
        PhysicalFile file;
        List<PhysicalFile> toClose = new ArrayList<>();
        synchronized (this) {
            while (true) {
                checkOpen();
                PhysicalFile candidate = stream ? pool.forStream(subtask) : pool.forAppend(subtask);
                boolean found = candidate != null && candidate != FilePool.NEEDS_WAIT;
                if (found && SpaceControl.wouldBeWasteful(candidate, subtask, checkpointId, files.values(), settings,
                        latestCompleted, jobId)) {
                    candidate.closing = true;
                    detachForClose(candidate, toClose);
                    continue;
                }
                if (found) {
                    file = candidate;
                    break;
                }
                if (candidate == null) {
                    // FilePool rule 3: open a file below the bound; at it, make room or (non-blocking) go unpooled.
                    PhysicalFile idle = pool.mayOpen() ? null : pool.fullestIdle();
                    if (idle != null) {
                        idle.closing = true;
                        detachForClose(idle, toClose);
                        continue;
                    }
                    if (pool.mayOpen() || !settings.blockingPool()) {
                        file = newFile(pool, directory, checkpointId, pool.mayOpen());
                        break;
                    }
                }
                try {
                    wait();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new InterruptedIOException("interrupted while waiting for a checkpoint file of " + pool);
                }
            }
            file.busy = true;
            file.writers.add(subtask);
            file.streaming = stream;
            file.lastTakenFor = Math.max(file.lastTakenFor, checkpointId);
        }
        closeAndDelete(toClose, List.of());
        if (file.out == null) {
            try {
                FsOutputStream out = fileSystem.create(file.path, WriteMode.EXCLUSIVE);
                out.write(MergedFileFormat.header());
                synchronized (this) {
                    file.out = out;
                    file.size = MergedFileFormat.HEADER_BYTES;
                }
            } catch (IOException | RuntimeException e) {
                giveBack(file, null, true, -1);
                throw e;
            }
        }
        return file;
    }

    /** Under the lock: a new file for {@code checkpointId}; an unpooled one takes one segment (FilePool rule 3). */
    private PhysicalFile newFile(FilePool pool, FsPath directory, long checkpointId, boolean pooled) {
        PhysicalFile file = new PhysicalFile(directory.resolve(MergedFileNames.newName(checkpointId)), pool, true);
        if (!directory.equals(privateDirectory)) {
            sharedDirectoriesWritten.add(directory);
        }
        if (pooled) {
            pool.files.add(file);
        } else {
            file.closing = true;
            unpooledFiles++;
        }
        files.put(file.path, file);
        return file;
    }

    /**
     * The writer is done with {@code file}, which is now {@code sizeAfter} bytes long (negative:
     * unknown, with {@code broken}): registers {@code written} (a segment it made durable, or
     * null), and closes the file if it is full, retired, picked by space control, or {@code
     * broken} (a write failed: its end is unknown).
     */
    void giveBack(PhysicalFile file, Segment written, boolean broken, long sizeAfter) {
        List<PhysicalFile> toClose = new ArrayList<>();
        List<PhysicalFile> toDelete = new ArrayList<>();
        List<FsPath> emptyDirectories;
        synchronized (this) {
            file.busy = false;
            file.streaming = false;
            if (sizeAfter >= 0) {
                file.size = sizeAfter;
            }
            if (written != null) {
                file.segmentAdded(written);
                if (closed || abortedCheckpoints.contains(written.createdFor)
                        || written.createdFor < lowestRetained) {
                    file.segmentDied(written);
                }
            }
            if (broken || closed || file.size >= settings.maxFileSizeBytes() || file.pool.retired) {
                file.closing = true;
            }
            if (file.closing) {
                detachForClose(file, toClose);
            }
            collectDeletable(toDelete);
            // The last writer after the end of the run: its directory may be empty now.
            emptyDirectories = closed && !toDelete.isEmpty() ? directoriesToDeleteIfEmpty() : List.of();
            notifyAll();
        }
        closeAndDelete(toClose, toDelete);
        deleteIfEmpty(emptyDirectories);
    }

    /** Under the lock: takes the file out of its pool and its stream out of the file, for closing outside the lock. */
    private void detachForClose(PhysicalFile file, List<PhysicalFile> toClose) {
        if (file.pool != null) {
            file.pool.files.remove(file);
        }
        if (file.out != null || file.busy) {
            toClose.add(file);
        }
    }

    /** Under the lock: rule 2, created files that are closed and hold no live segment; restored ones without live segments are forgotten. */
    private void collectDeletable(List<PhysicalFile> toDelete) {
        for (PhysicalFile file : new ArrayList<>(files.values())) {
            boolean closedForGood = file.closing || file.pool == null || file.pool.retired || closed;
            if (file.liveSegments == 0 && !file.busy && closedForGood) {
                files.remove(file.path);
                if (file.owned) {
                    file.deleted = true;
                    toDelete.add(file);
                }
            }
        }
    }

    private void closeAndDelete(List<PhysicalFile> toClose, List<PhysicalFile> toDelete) {
        for (PhysicalFile file : toClose) {
            FsOutputStream out;
            synchronized (this) {
                if (file.busy) {
                    continue; // its writer closes it when it gives it back
                }
                out = file.out;
                file.out = null;
            }
            if (out != null) {
                try {
                    out.close();
                } catch (IOException | RuntimeException e) {
                    LOG.warn("Job {}: cannot close merged checkpoint file {}: {}", jobId, file.path, e.toString());
                }
            }
        }
        if (!toDelete.isEmpty()) {
            List<FsPath> paths = toDelete.stream().map(file -> file.path).toList();
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
    }

    // ------------------------------------------------------------------ the end of the run

    /**
     * The run's last task here ended (rule 5): every file is closed; files no sent acknowledgement
     * can refer to are deleted, and so is the private directory if no acknowledgement named it.
     * Later calls fail; streams still being written fail at their next file.
     */
    @Override
    public void close() {
        List<PhysicalFile> toClose = new ArrayList<>();
        List<PhysicalFile> toDelete = new ArrayList<>();
        List<FsPath> emptyDirectories;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            for (FilePool pool : new ArrayList<>(pools.values())) {
                retire(pool, toClose);
            }
            for (PhysicalFile file : files.values()) {
                for (Segment segment : file.segments.values()) {
                    if (segment.live && file.owned && !mayBeReferenced(segment)) {
                        file.segmentDied(segment);
                    }
                }
            }
            collectDeletable(toDelete);
            emptyDirectories = directoriesToDeleteIfEmpty();
            notifyAll();
        }
        closeAndDelete(toClose, toDelete);
        deleteIfEmpty(emptyDirectories);
    }

    /** Under the lock, once the run ended: the directories it wrote that no acknowledgement that may complete names. */
    private List<FsPath> directoriesToDeleteIfEmpty() {
        List<FsPath> directories = new ArrayList<>();
        if (!mayBeNamedByACompletedCheckpoint(subtask -> true)) {
            directories.add(privateDirectory);
        }
        for (FsPath shared : sharedDirectoriesWritten) {
            if (!mayBeNamedByACompletedCheckpoint(subtask -> sharedDirectory(subtask).equals(shared))) {
                directories.add(shared);
            }
        }
        return directories;
    }

    private void deleteIfEmpty(List<FsPath> emptyDirectories) {
        if (!emptyDirectories.isEmpty()) {
            // After the files (the deleter runs in order): a directory no acknowledgement that may
            // complete named holds nothing any checkpoint refers to; one of a restored subtask may
            // hold adopted files, so only empty ones go.
            deleter.execute(() -> {
                for (FsPath directory : emptyDirectories) {
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

    /**
     * Rule 5: whether a checkpoint that completed (or may still complete) may name the directories
     * of the subtasks {@code naming} accepts: one of them sent an acknowledgement not known aborted.
     */
    private boolean mayBeNamedByACompletedCheckpoint(Predicate<SubtaskKey> naming) {
        for (SubtaskKey subtask : namedByCompleted) {
            if (naming.test(subtask)) {
                return true;
            }
        }
        for (Map.Entry<SubtaskKey, TreeSet<Long>> entry : acknowledged.entrySet()) {
            if (naming.test(entry.getKey()) && !abortedCheckpoints.containsAll(entry.getValue())) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether a checkpoint that completed may refer to {@code segment}: its subtask sent an
     * acknowledgement, not known aborted, for a checkpoint from the one it was written for to the
     * last that used it.
     */
    private boolean mayBeReferenced(Segment segment) {
        TreeSet<Long> ids = acknowledged.get(segment.subtask);
        if (ids == null) {
            return false;
        }
        for (long id : ids.subSet(segment.createdFor, true, segment.lastUsed, true)) {
            if (!abortedCheckpoints.contains(id)) {
                return true;
            }
        }
        return false;
    }

    private void checkOpen() throws IllegalStateException {
        if (closed) {
            throw new IllegalStateException("the file-merging manager of job " + jobId + " for " + privateDirectory
                    + " is closed: its run ended");
        }
    }

    FileMergingSettings settings() {
        return settings;
    }

    @Override
    public synchronized String toString() {
        return "file merging of job " + jobId + " (" + privateDirectory + ", " + files.size() + " files)";
    }
}
