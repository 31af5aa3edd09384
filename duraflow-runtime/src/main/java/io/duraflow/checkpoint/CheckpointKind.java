package io.duraflow.checkpoint;

/**
 * A checkpoint the job takes on its own and deletes when a newer one subsumes it, or a savepoint a
 * user asked for: written to the directory the user named and never subsumed or deleted by the job.
 */
public enum CheckpointKind {
    CHECKPOINT,
    SAVEPOINT
}
