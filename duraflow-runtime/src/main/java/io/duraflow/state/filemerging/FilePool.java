package io.duraflow.state.filemerging;

import java.util.ArrayList;
import java.util.List;

/**
 * The open physical files one kind of state of one owner writes to. Guarded by the manager's lock.
 * The rules for picking a file ({@link FilePools#take} applies them): see
 * docs/design/checkpoint-file-merging.md#filepool.
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
    /** The most files the pool keeps open at once (rule 3). */
    int capacity;
    /** The most subtasks whose writers take one of its files (rule 6). */
    int maxSubtasksPerFile = Integer.MAX_VALUE;
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
    PhysicalFile forAppend(SubtaskKey subtask) {
        PhysicalFile appendedTo = null;
        for (PhysicalFile file : files) {
            if (file.closing || file.streaming || !file.accepts(subtask, maxSubtasksPerFile)) {
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

    /** Rule 2: an idle open file for a large stream of {@code subtask}, or null. */
    PhysicalFile forStream(SubtaskKey subtask) {
        for (PhysicalFile file : files) {
            if (file.isOpen() && !file.busy && file.accepts(subtask, maxSubtasksPerFile)) {
                return file;
            }
        }
        return null;
    }

    /** Marker of {@link #forAppend()}: every usable file is held by an append; wait for one. */
    static final PhysicalFile NEEDS_WAIT = new PhysicalFile(io.duraflow.fs.FsPath.parse("/needs-wait"), null, false);

    /** Rule 3: whether a new file may be opened now. */
    boolean mayOpen() {
        return files.size() < capacity;
    }

    /** Rule 3, at the bound: the fullest idle open file (one the writer found no use for), or null. */
    PhysicalFile fullestIdle() {
        PhysicalFile fullest = null;
        for (PhysicalFile file : files) {
            if (file.isOpen() && !file.busy && (fullest == null || file.size > fullest.size)) {
                fullest = file;
            }
        }
        return fullest;
    }

    /** Files kept for further segments (not closing). */
    int openFiles() {
        int open = 0;
        for (PhysicalFile file : files) {
            open += file.closing ? 0 : 1;
        }
        return open;
    }

    @Override
    public String toString() {
        return name + (checkpointId >= 0 ? " of checkpoint " + checkpointId : "") + " (" + files.size() + " files)";
    }
}
