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
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checkpoint file merging for one run of one job's tasks on one TaskManager: their checkpoint
 * streams become segments of a few physical files, which this manager owns and deletes. The
 * thread-safe front over {@link SegmentLedger}, {@link FilePools} and {@link SpaceControl}:
 * bookkeeping under this object's lock, bytes written and files closed outside it, deletions on the
 * given executor. Its rules, numbered as {@code FileMergingSnapshotManager*Test} and the code refer
 * to them: see docs/design/checkpoint-file-merging.md#filemergingsnapshotmanager.
 */
public final class FileMergingSnapshotManager implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(FileMergingSnapshotManager.class);

    private final String jobId;
    private final FileSystem fileSystem;
    private final CheckpointDirectories directories;
    private final FileMergingSettings settings;
    private final FsPath privateDirectory;
    private final MergedFileDeleter deleter;

    private final SegmentLedger ledger = new SegmentLedger();
    private final FilePools pools;
    private final SpaceControl spaceControl;

    public FileMergingSnapshotManager(String jobId, String taskManagerId, String runId, FileSystem fileSystem,
            CheckpointDirectories directories, FileMergingSettings settings, Executor deleter) {
        this.jobId = jobId;
        this.fileSystem = fileSystem;
        this.directories = directories;
        this.settings = settings;
        this.privateDirectory = directories.taskOwnedFileMergingDirectory(taskManagerId + "-" + runId);
        this.deleter = new MergedFileDeleter(jobId, fileSystem, deleter);
        this.pools = new FilePools(settings, ledger);
        this.spaceControl = new SpaceControl(settings.maxSpaceAmplification());
    }

    // ------------------------------------------------------------------ tasks of the run

    /** A task of this run starts here. */
    public synchronized void register(SubtaskKey subtask) {
        checkOpen();
        pools.register(subtask);
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
                // Rule 4: a merged file of another job is never reused.
                boolean ofThisJob = directories.fileMergingDirectoryOf(handle.file()) != null;
                ledger.restored(subtask, checkpointId, handle, ofThisJob,
                        sizes.getOrDefault(handle.file(), handle.offset() + handle.length()));
            }
        }
    }

    private synchronized boolean knows(FsPath file) {
        return ledger.knows(file);
    }

    /**
     * Rule 5: {@code subtask} is about to acknowledge checkpoint {@code checkpointId}; the
     * directories the acknowledgement must name.
     */
    public synchronized Set<FsPath> acknowledging(SubtaskKey subtask, long checkpointId) {
        ledger.acknowledging(subtask, checkpointId);
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
        List<PhysicalFile> toDelete;
        synchronized (this) {
            boolean segmentsMayHaveDied = ledger.checkpointCompleted(checkpointId, lowestRetainedId);
            pools.retireUpTo(checkpointId, toClose);
            if (segmentsMayHaveDied) {
                controlSpace(toClose);
            }
            toDelete = ledger.collectDeletable();
            notifyAll();
        }
        closeStreams(toClose);
        deleter.deleteFiles(toDelete);
    }

    /** Checkpoint {@code checkpointId} will never complete: the segments written for it and used by nothing later die. */
    public void checkpointAborted(long checkpointId) {
        List<PhysicalFile> toClose = new ArrayList<>();
        List<PhysicalFile> toDelete;
        synchronized (this) {
            if (!ledger.checkpointAborted(checkpointId)) {
                return;
            }
            pools.retire(checkpointId, toClose);
            toDelete = ledger.collectDeletable();
            notifyAll();
        }
        closeStreams(toClose);
        deleter.deleteFiles(toDelete);
    }

    // ------------------------------------------------------------------ rule 6: space

    /** Bytes of every file known (created or restored), and their live bytes; the files of the pools. */
    public synchronized SpaceUsage spaceUsage() {
        SpaceUsage files = ledger.usage();
        return new SpaceUsage(files.physicalBytes(), files.liveBytes(), files.files(), files.openFiles(),
                pools.pooledFiles(), pools.unpooledFiles());
    }

    /** Under the lock, after a completion: the files space control picks are closed and no longer reused. */
    private void controlSpace(List<PhysicalFile> toClose) {
        SpaceControl.Pick pick = ledger.controlSpace(spaceControl);
        if (pick.overLimit()) {
            LOG.info("Job {}: merged checkpoint files hold {} bytes for {} live bytes ({}x, limit {}x): {} file(s) take"
                            + " no new segments and their live segments are written again", jobId, pick.physicalBytes(),
                    pick.liveBytes(), String.format(Locale.ROOT, "%.2f", pick.liveBytes() == 0 ? Double.POSITIVE_INFINITY
                            : (double) pick.physicalBytes() / pick.liveBytes()),
                    settings.maxSpaceAmplification(), pick.files().size());
        }
        for (PhysicalFile file : pick.files()) {
            if (file.out != null && !file.busy) {
                FilePools.detachForClose(file, toClose);
            }
        }
    }

    // ------------------------------------------------------------------ writing (MergingStreams)

    /** Rule 3: whether checkpoint {@code checkpointId} may refer to {@code handle} again; if so its watermark moves up. */
    synchronized boolean tryReuse(long checkpointId, StreamStateHandle handle) {
        return ledger.tryReuse(checkpointId, handle);
    }

    /** The pool a stream of {@code subtask} with {@code scope} for {@code checkpointId} writes to. */
    synchronized FilePool pool(SubtaskKey subtask, CheckpointedStateScope scope, long checkpointId) {
        checkOpen();
        return pools.pool(subtask, scope, checkpointId, ledger::hasEnded);
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
                file = pools.take(pool, directory, subtask, checkpointId, stream,
                        candidate -> wouldBeWasteful(candidate, subtask, checkpointId), toClose);
                if (file != null) {
                    break;
                }
                try {
                    wait();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new InterruptedIOException("interrupted while waiting for a checkpoint file of " + pool);
                }
            }
        }
        closeStreams(toClose);
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

    /** Under the lock: rule 6 ahead of the completion ({@link SpaceControl#wouldBeWasteful}). */
    private boolean wouldBeWasteful(PhysicalFile file, SubtaskKey subtask, long checkpointId) {
        boolean wasteful = spaceControl.wouldBeWasteful(file, subtask, checkpointId, ledger.files(),
                ledger.latestCompleted());
        if (wasteful) {
            LOG.debug("Job {}: checkpoint {} of {} refers to too few of the {} bytes of {}: a new file takes its"
                    + " segments", jobId, checkpointId, subtask, file.size, file.path);
        }
        return wasteful;
    }

    /**
     * The writer is done with {@code file}, which is now {@code sizeAfter} bytes long (negative:
     * unknown, with {@code broken}): registers {@code written} (a segment it made durable, or
     * null), and closes the file if it is full, retired, picked by space control, or {@code
     * broken} (a write failed: its end is unknown).
     */
    void giveBack(PhysicalFile file, Segment written, boolean broken, long sizeAfter) {
        List<PhysicalFile> toClose = new ArrayList<>();
        List<PhysicalFile> toDelete;
        List<FsPath> emptyDirectories;
        synchronized (this) {
            file.busy = false;
            file.streaming = false;
            if (sizeAfter >= 0) {
                file.size = sizeAfter;
            }
            if (written != null) {
                ledger.segmentWritten(written);
            }
            boolean runEnded = ledger.hasRunEnded();
            if (broken || runEnded || file.size >= settings.maxFileSizeBytes() || file.pool.retired) {
                file.closing = true;
            }
            if (file.closing) {
                FilePools.detachForClose(file, toClose);
            }
            toDelete = ledger.collectDeletable();
            // The last writer after the end of the run: its directory may be empty now.
            emptyDirectories = runEnded && !toDelete.isEmpty() ? directoriesToDeleteIfEmpty() : List.of();
            notifyAll();
        }
        closeStreams(toClose);
        deleter.deleteFiles(toDelete);
        deleter.deleteIfEmpty(emptyDirectories);
    }

    /** Outside the lock: closes the streams of files detached for closing, unless a writer still holds one. */
    private void closeStreams(List<PhysicalFile> toClose) {
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
        List<PhysicalFile> toDelete;
        List<FsPath> emptyDirectories;
        synchronized (this) {
            if (ledger.hasRunEnded()) {
                return;
            }
            pools.retireAll(toClose);
            ledger.runEnded();
            toDelete = ledger.collectDeletable();
            emptyDirectories = directoriesToDeleteIfEmpty();
            notifyAll();
        }
        closeStreams(toClose);
        deleter.deleteFiles(toDelete);
        deleter.deleteIfEmpty(emptyDirectories);
    }

    /** Under the lock, once the run ended: the directories it wrote that no acknowledgement that may complete names. */
    private List<FsPath> directoriesToDeleteIfEmpty() {
        List<FsPath> directories = new ArrayList<>();
        if (!ledger.mayBeNamedByACompletedCheckpoint(subtask -> true)) {
            directories.add(privateDirectory);
        }
        for (FsPath shared : pools.sharedDirectoriesWritten()) {
            if (!ledger.mayBeNamedByACompletedCheckpoint(subtask -> sharedDirectory(subtask).equals(shared))) {
                directories.add(shared);
            }
        }
        return directories;
    }

    private void checkOpen() throws IllegalStateException {
        if (ledger.hasRunEnded()) {
            throw new IllegalStateException("the file-merging manager of job " + jobId + " for " + privateDirectory
                    + " is closed: its run ended");
        }
    }

    FileMergingSettings settings() {
        return settings;
    }

    @Override
    public synchronized String toString() {
        return "file merging of job " + jobId + " (" + privateDirectory + ", " + ledger.files().size() + " files)";
    }
}
