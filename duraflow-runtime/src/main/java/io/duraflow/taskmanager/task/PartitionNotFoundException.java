package io.duraflow.taskmanager.task;

/** An input partition is gone (its TaskManager died, or it was released): its producer must run again. */
public final class PartitionNotFoundException extends Exception {
    private final String partitionId;

    public PartitionNotFoundException(String partitionId, String reason) {
        super("input partition " + partitionId + " is not available: " + reason);
        this.partitionId = partitionId;
    }

    public String partitionId() {
        return partitionId;
    }
}
