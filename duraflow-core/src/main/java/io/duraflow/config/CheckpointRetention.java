package io.duraflow.config;

/** What happens to a streaming job's checkpoints when it ends; the value of {@code execution.checkpointing.retention}. */
public enum CheckpointRetention {
    /**
     * Deleted when the job finishes or is cancelled; kept when it fails, so that it can be
     * started again from its latest checkpoint.
     */
    DELETE_ON_CANCELLATION,
    /** Kept however the job ends; deleting them is up to the user. */
    RETAIN_ON_CANCELLATION
}
