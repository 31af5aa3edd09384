package io.duraflow.checkpoint;

/** A checkpoint or savepoint that did not complete; {@link #failure()} says why. */
public final class CheckpointException extends Exception {
    private final CheckpointFailure failure;

    public CheckpointException(CheckpointFailure failure) {
        super(failure.describe());
        this.failure = failure;
    }

    public CheckpointFailure failure() {
        return failure;
    }
}
