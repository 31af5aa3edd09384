package io.duraflow.exchange;

/**
 * An input partition is gone (its TaskManager died, it was released, or its files are corrupt):
 * its producer must run again.
 */
public final class PartitionNotFoundException extends Exception {
    private final String partitionId;
    private final String reason;

    public PartitionNotFoundException(String partitionId, String reason) {
        this(partitionId, reason, null);
    }

    public PartitionNotFoundException(String partitionId, String reason, Throwable cause) {
        super("input partition " + partitionId + " is not available: " + reason, cause);
        this.partitionId = partitionId;
        this.reason = reason;
    }

    public String partitionId() {
        return partitionId;
    }

    /** Why it is not available, without the partition id: what a producer's TaskManager tells a consumer's. */
    public String reason() {
        return reason;
    }
}
