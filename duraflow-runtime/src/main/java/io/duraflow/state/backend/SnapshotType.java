package io.duraflow.state.backend;

/** What a snapshot is for, which decides what a backend may write. */
public enum SnapshotType {
    /**
     * A regular checkpoint: the backend's own format, and an incremental backend may refer to
     * files of earlier checkpoints.
     */
    CHECKPOINT,
    /**
     * A checkpoint that refers to no earlier file: the first one after a restore in no-claim mode,
     * so the job never depends on files it did not write.
     */
    FULL_CHECKPOINT,
    /**
     * Self-contained, in the canonical key-groups format ({@code KeyedSnapshotFormat}) that every
     * backend restores, so a job can move between backends.
     */
    SAVEPOINT;

    /** Whether the snapshot may refer to state files of earlier checkpoints. */
    public boolean mayBeIncremental() {
        return this == CHECKPOINT;
    }
}
