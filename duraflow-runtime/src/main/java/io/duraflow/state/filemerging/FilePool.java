package io.duraflow.state.filemerging;

import java.util.ArrayList;
import java.util.List;

/**
 * The open physical files one kind of state of one owner writes to: a subtask's incremental state,
 * or the private state of the job's tasks on this TaskManager; with merging within checkpoints, one
 * pool per checkpoint. Guarded by the manager's lock.
 *
 * <p>Rules for picking a file (the manager applies them):
 * <ol>
 *   <li>An append (a stream small enough to be collected in memory) takes an open file no large
 *       stream holds, preferring one no one holds; if every such file is held by another append it
 *       waits for it (an append holds a file for one write and one sync) rather than open a file;
 *       a file an append is still creating counts as held by it.</li>
 *   <li>A large stream takes an open file no one holds.</li>
 *   <li>When there is none: a non-blocking pool opens a new file; a blocking one opens a new file
 *       only below its {@link #capacity}, else waits for a file to be given back.</li>
 *   <li>A file given back that reached the maximum size, or whose pool retired, is closed.</li>
 *   <li>Across checkpoints, a subtask's open file that the checkpoint about to write to it would
 *       leave wasteful is closed first, and a new one taken (the manager's rule 6).</li>
 * </ol>
 */
final class FilePool {
    /** What the pool is for, e.g. {@code "shared v1/0-of-2"} or {@code "private"}; with its checkpoint id when within-checkpoint. */
    final String name;
    /** For merging within checkpoints: the checkpoint whose segments it takes; -1 across checkpoints. */
    final long checkpointId;
    /** Open files (and closing ones still held by a writer). */
    final List<PhysicalFile> files = new ArrayList<>();
    /** Retired: its files close once their writer gives them back, and it opens no new file. */
    boolean retired;
    /** The most files a blocking pool keeps open at once. */
    int capacity;
    /** Takes a subtask's incremental ({@code SHARED}) state, which later checkpoints refer to again. */
    final boolean shared;

    FilePool(String name, long checkpointId, int capacity, boolean shared) {
        this.name = name;
        this.checkpointId = checkpointId;
        this.capacity = capacity;
        this.shared = shared;
    }

    /**
     * Rule 1: a file for an append; {@link #NEEDS_WAIT} when every usable file is held by another
     * append (or is being created for one: its header is written outside the manager's lock, and
     * an append that opened a file of its own meanwhile would leave two files where one does);
     * null when there is none.
     */
    PhysicalFile forAppend() {
        PhysicalFile appendedTo = null;
        for (PhysicalFile file : files) {
            if (file.closing || file.streaming) {
                continue;
            }
            if (file.out == null) {
                if (file.busy) {
                    appendedTo = file; // being created by an append
                }
                continue;
            }
            if (!file.busy) {
                return file;
            }
            appendedTo = file;
        }
        return appendedTo == null ? null : NEEDS_WAIT;
    }

    /** Rule 2: an idle open file for a large stream, or null. */
    PhysicalFile forStream() {
        for (PhysicalFile file : files) {
            if (file.isOpen() && !file.busy) {
                return file;
            }
        }
        return null;
    }

    /** Marker of {@link #forAppend()}: every usable file is held by an append; wait for one. */
    static final PhysicalFile NEEDS_WAIT = new PhysicalFile(io.duraflow.fs.FsPath.parse("/needs-wait"), null, false);

    /** Rule 3: whether a new file may be opened now. */
    boolean mayOpen(boolean blocking) {
        return !blocking || files.size() < capacity;
    }

    @Override
    public String toString() {
        return name + (checkpointId >= 0 ? " of checkpoint " + checkpointId : "") + " (" + files.size() + " files)";
    }
}
