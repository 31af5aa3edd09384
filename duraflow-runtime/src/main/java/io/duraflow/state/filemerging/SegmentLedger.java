package io.duraflow.state.filemerging;

import io.duraflow.fs.FsPath;
import io.duraflow.state.CheckpointDirectories;
import io.duraflow.state.FileSegmentHandle;
import io.duraflow.state.StreamStateHandle;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.function.Predicate;

/**
 * The bookkeeping of one run's merged checkpoint files (rules 1 to 5 of {@link
 * FileMergingSnapshotManager}): files, their segments and watermarks, and which files may go. Pure
 * and single-threaded: no lock, no I/O, no clock; the caller serializes every call. Its invariants:
 * see docs/design/checkpoint-file-merging.md#segmentledger.
 */
final class SegmentLedger {
    /** Every file the run knows (created, or restored), by path. */
    private final Map<FsPath, PhysicalFile> files = new HashMap<>();
    private final Collection<PhysicalFile> filesView = Collections.unmodifiableCollection(files.values());
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
    private boolean runEnded;

    // ------------------------------------------------------------------ files and segments

    /** Every file known, created or restored (a view). */
    Collection<PhysicalFile> files() {
        return filesView;
    }

    boolean knows(FsPath path) {
        return files.containsKey(path);
    }

    /** A file created for new segments. */
    void fileCreated(PhysicalFile file) {
        files.put(file.path, file);
    }

    /**
     * Rule 4: {@code subtask} restored {@code handle} of checkpoint {@code checkpointId}; an unknown
     * file becomes known with {@code fileSizeBytes}, reusable only if {@code reusable} (false: a
     * merged file of another job).
     */
    void restored(SubtaskKey subtask, long checkpointId, FileSegmentHandle handle, boolean reusable,
            long fileSizeBytes) {
        PhysicalFile file = files.get(handle.file());
        if (file == null) {
            file = new PhysicalFile(handle.file(), null, false);
            file.reusable = reusable;
            file.size = fileSizeBytes;
            files.put(file.path, file);
        }
        if (!file.segments.containsKey(handle.offset())) {
            file.segmentAdded(new Segment(file, subtask, handle.offset(), handle.length(), checkpointId));
        }
    }

    /**
     * A writer made {@code written} durable in its file: a segment of a checkpoint that ended
     * already (aborted, below the lowest retained id, or the run ended) is dead at once.
     */
    void segmentWritten(Segment written) {
        written.file.segmentAdded(written);
        if (runEnded || abortedCheckpoints.contains(written.createdFor) || written.createdFor < lowestRetained) {
            written.file.segmentDied(written);
        }
    }

    /** Rule 3: whether checkpoint {@code checkpointId} may refer to {@code handle} again; if so its watermark moves up. */
    boolean tryReuse(long checkpointId, StreamStateHandle handle) {
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

    /**
     * Rule 2: removes the files that are closed for good, held by no writer and hold no live segment;
     * returns the created ones among them, to delete (restored ones are only forgotten).
     */
    List<PhysicalFile> collectDeletable() {
        List<PhysicalFile> toDelete = new ArrayList<>();
        for (PhysicalFile file : new ArrayList<>(files.values())) {
            if (file.liveSegments == 0 && !file.busy && (file.takesNoMoreSegments() || runEnded)) {
                files.remove(file.path);
                if (file.owned) {
                    file.deleted = true;
                    toDelete.add(file);
                }
            }
        }
        return toDelete;
    }

    // ------------------------------------------------------------------ checkpoints

    /** Rule 5: {@code subtask} is about to acknowledge checkpoint {@code checkpointId}. */
    void acknowledging(SubtaskKey subtask, long checkpointId) {
        acknowledged.computeIfAbsent(subtask, key -> new TreeSet<>()).add(checkpointId);
    }

    /**
     * Rule 1: checkpoint {@code checkpointId} completed and the retained checkpoints are {@code
     * lowestRetainedId} and above. Idempotent; returns whether the lowest retained id rose (then
     * segments may have died, and space control is due).
     */
    boolean checkpointCompleted(long checkpointId, long lowestRetainedId) {
        latestCompleted = Math.max(latestCompleted, checkpointId);
        if (lowestRetainedId <= lowestRetained) {
            return false;
        }
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
        return true;
    }

    /**
     * Checkpoint {@code checkpointId} will never complete: the segments written for it and used by
     * nothing later die. Returns false, changing nothing, for a checkpoint below the lowest retained
     * id (its segments are dead already).
     */
    boolean checkpointAborted(long checkpointId) {
        if (checkpointId < lowestRetained) {
            return false;
        }
        abortedCheckpoints.add(checkpointId);
        for (PhysicalFile file : files.values()) {
            for (Segment segment : file.segments.values()) {
                if (segment.live && segment.createdFor == checkpointId && segment.lastUsed == checkpointId) {
                    file.segmentDied(segment);
                }
            }
        }
        return true;
    }

    /** Whether checkpoint {@code checkpointId} can no longer complete, as far as notifications told: aborted, or below the lowest retained id. */
    boolean hasEnded(long checkpointId) {
        return abortedCheckpoints.contains(checkpointId) || checkpointId < lowestRetained;
    }

    long lowestRetained() {
        return lowestRetained;
    }

    long latestCompleted() {
        return latestCompleted;
    }

    // ------------------------------------------------------------------ space

    /**
     * Rule 6 after a completion: applies {@code policy}'s pick, whose files take no new segment and
     * are not reused from now on; the caller closes them.
     */
    SpaceControl.Pick controlSpace(SpaceControl policy) {
        SpaceControl.Pick pick = policy.pick(files.values());
        for (PhysicalFile file : pick.files()) {
            file.reusable = false;
            file.closing = true;
        }
        return pick;
    }

    /** Bytes of every file known (created or restored), their live bytes, the files, and those with an output stream. */
    SpaceUsage usage() {
        long physical = 0;
        long live = 0;
        int open = 0;
        for (PhysicalFile file : files.values()) {
            physical += file.size;
            live += file.liveBytes;
            open += file.out != null ? 1 : 0;
        }
        return new SpaceUsage(physical, live, files.size(), open);
    }

    // ------------------------------------------------------------------ the end of the run

    /**
     * Rule 5: the run's last task ended. The segments of created files that no acknowledgement not
     * known aborted may refer to die, and from now on every file without live segment goes.
     */
    void runEnded() {
        runEnded = true;
        for (PhysicalFile file : files.values()) {
            for (Segment segment : file.segments.values()) {
                if (segment.live && file.owned && !mayBeReferenced(segment)) {
                    file.segmentDied(segment);
                }
            }
        }
    }

    boolean hasRunEnded() {
        return runEnded;
    }

    /**
     * Rule 5: whether a checkpoint that completed (or may still complete) may name the directories
     * of the subtasks {@code naming} accepts: one of them sent an acknowledgement not known aborted.
     */
    boolean mayBeNamedByACompletedCheckpoint(Predicate<SubtaskKey> naming) {
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

    @Override
    public String toString() {
        return files.size() + " files, lowest retained " + lowestRetained + ", latest completed " + latestCompleted
                + (runEnded ? ", run ended" : "");
    }
}
