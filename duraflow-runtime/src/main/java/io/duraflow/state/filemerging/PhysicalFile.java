package io.duraflow.state.filemerging;

import io.duraflow.fs.FsOutputStream;
import io.duraflow.fs.FsPath;
import java.util.HashSet;
import java.util.Set;
import java.util.TreeMap;

/**
 * A file that holds segments of many checkpoint streams ({@link MergedFileFormat}). Bookkeeping is
 * guarded by the {@link FileMergingSnapshotManager}'s lock: the {@link SegmentLedger} keeps its
 * segments, the {@link FilePools} and writers its pool fields; the output stream belongs to the one
 * writer that holds the file ({@link #busy}) and is touched by no one else meanwhile.
 *
 * <p>Life: <b>open</b> (has an output stream, takes segments) -> <b>closed</b> (no more segments:
 * full, its pool retired, marked by space control, or a write failed) -> <b>deleted</b>, by its
 * owner once closed with no live segment. A file restored from a checkpoint ({@link #owned} false)
 * is closed from the start and never deleted by a TaskManager: the JobManager adopted it at the
 * restore and deletes it when no checkpoint refers to it.
 */
final class PhysicalFile {
    final FsPath path;
    /** Null for a restored file. */
    final FilePool pool;
    /** Created by this manager (deleted by it); false: restored, counted for space only. */
    final boolean owned;
    /** Segments by offset. */
    final TreeMap<Long, Segment> segments = new TreeMap<>();
    /** Bytes in the file: header, segments, trailers and torn tails of failed writes. */
    long size;
    long liveBytes;
    int liveSegments;
    /** Null once closed (and always for a restored file). */
    FsOutputStream out;
    /** Held by a writer, who alone touches {@link #out}. */
    boolean busy;
    /** Held by a writer of one large stream (appenders do not wait for it). */
    boolean streaming;
    /** Takes no new segment: close it as soon as no writer holds it. */
    boolean closing;
    /** Its live segments may be referred to by later checkpoints; false once space control picked it. */
    boolean reusable = true;
    boolean deleted;
    /** The subtasks whose writers took it ({@link FilePool} rule 6). */
    final Set<SubtaskKey> writers = new HashSet<>();
    /** The newest checkpoint a writer took this file for (-1: none yet): rule 6's look ahead runs once per checkpoint. */
    long lastTakenFor = -1;

    PhysicalFile(FsPath path, FilePool pool, boolean owned) {
        this.path = path;
        this.pool = pool;
        this.owned = owned;
    }

    boolean isOpen() {
        return out != null && !closing;
    }

    /** Closed for good: takes no new segment, ever (closing, restored, or its pool retired). */
    boolean takesNoMoreSegments() {
        return closing || pool == null || pool.retired;
    }

    /** Whether a writer of {@code subtask} may take it: at most {@code maxSubtasks} subtasks write to one file. */
    boolean accepts(SubtaskKey subtask, int maxSubtasks) {
        return writers.size() < maxSubtasks || writers.contains(subtask);
    }

    /** Bytes no live segment uses. */
    long deadBytes() {
        return size - liveBytes;
    }

    void segmentDied(Segment segment) {
        segment.live = false;
        liveBytes -= segment.length;
        liveSegments--;
    }

    void segmentAdded(Segment segment) {
        segments.put(segment.offset, segment);
        liveBytes += segment.length;
        liveSegments++;
    }

    @Override
    public String toString() {
        return path + " (" + size + " bytes, " + liveBytes + " live in " + liveSegments + " segments"
                + (owned ? "" : ", restored") + (out == null ? ", closed" : closing ? ", closing" : ", open") + ")";
    }
}
