package io.duraflow.checkpoint;

import java.util.Objects;

/**
 * Why checkpoint {@code checkpointId} failed, as users see it.
 *
 * @param checkpointId 0 if the trigger failed before an id was drawn
 * @param task the task that declined or failed ({@code "vertex 2 subtask 1"}), or null
 */
public record CheckpointFailure(long checkpointId, CheckpointFailureReason reason, String message, String task) {
    public CheckpointFailure {
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(message, "message");
    }

    public String describe() {
        return "checkpoint " + checkpointId + " failed (" + reason + (task == null ? "" : ", " + task) + "): "
                + message;
    }
}
