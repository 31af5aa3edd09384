package io.duraflow.checkpoint;

/**
 * What the parts that move a pending checkpoint along ({@link CheckpointStarter}, {@link
 * CheckpointAcknowledgements}) ask of the {@link CheckpointCoordinator} and hand back to it. The
 * coordinator alone ends a checkpoint, so that completion and abort (with their notifications,
 * deletions and failure counting) stay in one place. Called on the main thread only.
 */
interface CheckpointProgress {
    /** Whether the coordinator shut down: no checkpoint starts any more. */
    boolean isShutdown();

    /** {@link CheckpointRestorer} rule 2, no-claim mode: whether a checkpoint must refer to no earlier file. */
    boolean checkpointsFull();

    /** {@code checkpoint} cannot complete (a failure of rule 4 or 5): the coordinator aborts it. */
    void abort(PendingCheckpoint checkpoint, CheckpointFailure failure);

    /** Every task acknowledged {@code checkpoint}: the coordinator makes it durable (rule 3). */
    void allAcknowledged(PendingCheckpoint checkpoint);
}
