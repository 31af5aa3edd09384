package io.duraflow.state.filemerging;

/**
 * One checkpoint stream's bytes in a {@link PhysicalFile} (a "logical file"): live while a
 * checkpoint that may still be retained refers to it. Mutable, kept by the {@link SegmentLedger}.
 */
final class Segment {
    final PhysicalFile file;
    /** The subtask whose stream wrote it (or restored it). */
    final SubtaskKey subtask;
    final long offset;
    final long length;
    /** The checkpoint it was written for. */
    final long createdFor;
    /** The newest checkpoint that refers to it (written for, or reused by): the watermark of seed 003. */
    long lastUsed;
    boolean live = true;

    Segment(PhysicalFile file, SubtaskKey subtask, long offset, long length, long createdFor) {
        this.file = file;
        this.subtask = subtask;
        this.offset = offset;
        this.length = length;
        this.createdFor = createdFor;
        this.lastUsed = createdFor;
    }

    @Override
    public String toString() {
        return "segment of " + subtask + " at " + offset + "+" + length + " of " + file.path + " (checkpoint " + createdFor + ", last used by "
                + lastUsed + (live ? "" : ", dead") + ")";
    }
}
