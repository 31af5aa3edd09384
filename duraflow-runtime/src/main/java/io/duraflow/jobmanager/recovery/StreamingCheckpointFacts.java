package io.duraflow.jobmanager.recovery;

/**
 * What the completed-checkpoint store tells a new leader about a streaming job, for {@link
 * AdoptionPlanner#planStreaming}. Ids are 0 for "none".
 *
 * @param latestCompletedId the newest checkpoint in the store: what restarted tasks restore
 * @param initialRestoreId  the savepoint or retained checkpoint the job was submitted with
 *                          ({@code --from-savepoint}), which tasks restore while the store is empty
 */
public record StreamingCheckpointFacts(long latestCompletedId, long initialRestoreId) {
    public StreamingCheckpointFacts {
        if (latestCompletedId < 0 || initialRestoreId < 0) {
            throw new IllegalArgumentException("checkpoint ids are not negative: latest " + latestCompletedId
                    + ", initial restore " + initialRestoreId);
        }
    }

    /** A job with neither a completed checkpoint nor a savepoint to start from. */
    public static StreamingCheckpointFacts none() {
        return new StreamingCheckpointFacts(0, 0);
    }

    /** The checkpoint tasks that start now restore: the latest completed one, else the initial restore, else 0. */
    public long restoreId() {
        return latestCompletedId > 0 ? latestCompletedId : initialRestoreId;
    }
}
