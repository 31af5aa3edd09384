package io.duraflow.state.filemerging;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rule 6 of {@link FileMergingSnapshotManager} (space), as functions of the manager's files: which
 * files to close and stop reusing after a completion, and whether a checkpoint about to append to
 * an open file should take a new one instead. Called under the manager's lock.
 */
final class SpaceControl {
    private static final Logger LOG = LoggerFactory.getLogger(SpaceControl.class);

    private SpaceControl() {
    }

    /**
     * After a completion: if the bytes of {@code files} exceed {@code max-space-amplification} times
     * their live bytes, marks the files with most dead bytes closing and not reusable until the
     * limit is met (the dead bytes of files picked before count as freed); returns those picked now.
     */
    static List<PhysicalFile> pick(Collection<PhysicalFile> files, FileMergingSettings settings, String jobId) {
        if (!settings.controlsSpace()) {
            return List.of();
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
        double limit = settings.maxSpaceAmplification() * live;
        long projected = physical - freedByPicked;
        if (projected <= limit) {
            return List.of();
        }
        candidates.sort(Comparator.comparingLong(PhysicalFile::deadBytes).reversed());
        List<PhysicalFile> picked = new ArrayList<>();
        for (PhysicalFile file : candidates) {
            if (projected <= limit) {
                break;
            }
            file.reusable = false;
            file.closing = true;
            projected -= file.deadBytes();
            picked.add(file);
        }
        LOG.info("Job {}: merged checkpoint files hold {} bytes for {} live bytes ({}x, limit {}x): {} file(s) take no"
                        + " new segments and their live segments are written again", jobId, physical, live,
                String.format(java.util.Locale.ROOT, "%.2f", live == 0 ? Double.POSITIVE_INFINITY : (double) physical / live),
                settings.maxSpaceAmplification(), picked.size());
        return picked;
    }

    /**
     * Rule 6, ahead of the completion: whether {@code subtask}'s checkpoint {@code checkpointId},
     * about to write its first segment into the open across-checkpoint file {@code file}, should
     * take a new file instead. The checkpoint decided what it reuses before it writes (a RocksDB
     * snapshot asks for every reuse, then uploads), so the bytes it will not refer to are known:
     * after a compaction most of the file is such bytes, and appending the compaction's output would
     * tie that output to them, so neither could go without rewriting the other. Closes the file when
     * the file alone, and the subtask's files together, would be above the limit once the
     * checkpoint's predecessors are subsumed (only segments of completed checkpoints that it does not
     * refer to count as going: exact with one retained checkpoint, the default; with more
     * retained, such segments live a few completions longer, so a file may be closed earlier than
     * needed, costing a file, never a byte); more data only lowers the ratio, so a file within the
     * limit stays. A closed file whose segments all die with the checkpoint's completion is deleted
     * then (rule 2).
     */
    static boolean wouldBeWasteful(PhysicalFile file, SubtaskKey subtask, long checkpointId,
            Collection<PhysicalFile> files, FileMergingSettings settings, long latestCompleted, String jobId) {
        if (!settings.controlsSpace() || file.pool == null || !file.pool.shared || file.pool.checkpointId >= 0
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
        double limit = settings.maxSpaceAmplification();
        long fileSegmentBytes = file.size - MergedFileFormat.HEADER_BYTES;
        if (fileSegmentBytes <= limit * fileUsed || physical <= limit * used) {
            return false;
        }
        LOG.debug("Job {}: checkpoint {} of {} refers to {} of the {} bytes of {}: a new file takes its segments", jobId,
                checkpointId, subtask, fileUsed, file.size, file.path);
        return true;
    }
}
