package io.duraflow.state.filemerging;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;

/**
 * Rule 6 of {@link FileMergingSnapshotManager} (space) as a pure decision over the files of a
 * {@link SegmentLedger}: which files to close and stop reusing after a completion, and whether a
 * checkpoint about to append to an open file should take a new one instead. It reads the files and
 * changes nothing; the ledger applies a {@link Pick} ({@link SegmentLedger#controlSpace}) and the
 * manager closes the files it names.
 *
 * <p>The bound it keeps: after a completion, the bytes of the files, less the dead bytes of the
 * files picked (now or before: they go once their live segments die), are at most {@code
 * max-space-amplification} times the live bytes, or every file with dead bytes is picked.
 */
final class SpaceControl {
    private final double maxSpaceAmplification;

    /** @param maxSpaceAmplification bytes on disk per live byte; below 1: no limit */
    SpaceControl(double maxSpaceAmplification) {
        this.maxSpaceAmplification = maxSpaceAmplification;
    }

    /** Whether space amplification is controlled at all ({@link FileMergingSettings#controlsSpace()}). */
    boolean enabled() {
        return maxSpaceAmplification >= 1.0;
    }

    double maxSpaceAmplification() {
        return maxSpaceAmplification;
    }

    /**
     * What {@link #pick} decided.
     *
     * @param files the files to close and stop reusing now, most dead bytes first
     * @param physicalBytes bytes of every file judged
     * @param liveBytes their live bytes
     * @param overLimit whether the files, less what picked files will free, were above the limit
     */
    record Pick(List<PhysicalFile> files, long physicalBytes, long liveBytes, boolean overLimit) {
        static final Pick NONE = new Pick(List.of(), 0, 0, false);
    }

    /**
     * After a completion: if the bytes of {@code files} exceed {@code max-space-amplification} times
     * their live bytes, the reusable files with most dead bytes until the limit is met (the dead
     * bytes of files picked before, no longer reusable, count as freed).
     */
    Pick pick(Collection<PhysicalFile> files) {
        if (!enabled()) {
            return Pick.NONE;
        }
        long physical = 0;
        long live = 0;
        // The dead bytes of files picked before go once their live segments die (their next
        // checkpoint writes those again): counted as freed, or every completion until then would
        // pick more files than needed.
        long freedByPicked = 0;
        List<PhysicalFile> candidates = new ArrayList<>();
        for (PhysicalFile file : files) {
            physical += file.size;
            live += file.liveBytes;
            if (!file.reusable) {
                freedByPicked += file.deadBytes();
            } else if (file.deadBytes() > 0) {
                candidates.add(file);
            }
        }
        double limit = maxSpaceAmplification * live;
        long projected = physical - freedByPicked;
        if (projected <= limit) {
            return new Pick(List.of(), physical, live, false);
        }
        candidates.sort(Comparator.comparingLong(PhysicalFile::deadBytes).reversed());
        List<PhysicalFile> picked = new ArrayList<>();
        for (PhysicalFile file : candidates) {
            if (projected <= limit) {
                break;
            }
            projected -= file.deadBytes();
            picked.add(file);
        }
        return new Pick(List.copyOf(picked), physical, live, true);
    }

    /**
     * Rule 6, ahead of the completion: whether {@code subtask}'s checkpoint {@code checkpointId},
     * about to write its first segment into the open across-checkpoint file {@code file}, should
     * take a new file instead. The checkpoint decided what it reuses before it writes (a RocksDB
     * snapshot asks for every reuse, then uploads), so the bytes it will not refer to are known:
     * after a compaction most of the file is such bytes, and appending the compaction's output would
     * tie that output to them, so neither could go without rewriting the other. True when the file
     * alone, and the subtask's files together, would be above the limit once the checkpoint's
     * predecessors are subsumed (only segments of completed checkpoints, up to {@code
     * latestCompleted}, that it does not refer to count as going: exact with one retained
     * checkpoint, the default; with more retained, such segments live a few completions longer, so
     * a file may be closed earlier than needed, costing a file, never a byte); more data only lowers
     * the ratio, so a file within the limit stays. A closed file whose segments all die with the
     * checkpoint's completion is deleted then (rule 2).
     */
    boolean wouldBeWasteful(PhysicalFile file, SubtaskKey subtask, long checkpointId, Collection<PhysicalFile> files,
            long latestCompleted) {
        if (!enabled() || file.pool == null || !file.pool.shared || file.pool.checkpointId >= 0
                || checkpointId <= file.lastTakenFor) {
            return false;
        }
        long fileUsed = 0;
        long used = 0;
        long physical = 0;
        for (PhysicalFile known : files) {
            long usedHere = 0;
            for (Segment segment : known.segments.values()) {
                // A segment of a checkpoint still in flight may yet be retained: counted as used.
                boolean stays = segment.lastUsed >= checkpointId || segment.lastUsed > latestCompleted;
                if (segment.live && stays && segment.subtask.equals(subtask)) {
                    usedHere += segment.length;
                }
            }
            if (known == file) {
                fileUsed = usedHere;
                physical += known.size;
            } else if (usedHere > 0) {
                physical += known.size;
            }
            used += usedHere;
        }
        long fileSegmentBytes = file.size - MergedFileFormat.HEADER_BYTES;
        return fileSegmentBytes > maxSpaceAmplification * fileUsed && physical > maxSpaceAmplification * used;
    }
}
