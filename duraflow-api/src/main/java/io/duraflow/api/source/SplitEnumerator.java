package io.duraflow.api.source;

import io.duraflow.api.checkpoint.CheckpointAvailabilityProvider;
import io.duraflow.api.checkpoint.SnapshotAvailability;
import java.util.List;

/**
 * Hands out splits to readers. Called only from the JobManager's main thread, so
 * implementations need no synchronization.
 */
public interface SplitEnumerator<S extends SourceSplit> extends AutoCloseable, CheckpointAvailabilityProvider {
    void start();

    /** A reader asks for work. Answer with assignSplit or signalNoMoreSplits on the context. */
    void handleSplitRequest(int subtask);

    /**
     * Splits that a failed or reset reader had been given come back; they must be handed out
     * again. The subtask may ask again once it restarts.
     */
    void addSplitsBack(List<S> splits, int subtask);

    /**
     * The enumerator's state (its unassigned splits) for a checkpoint; batch jobs pass -1.
     * {@link Source#restoreEnumerator} must accept these bytes.
     */
    byte[] snapshotState(long checkpointId) throws Exception;

    /**
     * Whether {@link #snapshotState} can be called at any time while a batch job runs, after
     * every assignment and every {@link #addSplitsBack}. Batch job recovery relies on it: the
     * JobManager records the enumerator's state with each change of who holds which split, and a
     * new leader continues from the last one, re-running only the readers that did not finish.
     *
     * <p>An enumerator that cannot (say, it follows an external system whose position it cannot
     * capture) returns false; {@link #snapshotState} is then never called for batch recovery.
     * After a JobManager failover such a source is either kept whole, if all its readers had
     * finished, or read again from the start by all its readers with a new enumerator; if that
     * would mix old and new output in a consumer, the job restarts from the beginning.
     */
    default boolean supportsBatchSnapshot() {
        return true;
    }

    /**
     * Whether this enumerator can snapshot for checkpoint {@code checkpointId} now; asked on the
     * JobManager's main thread before {@link #snapshotState}. See {@link SnapshotAvailability}.
     * Default: available.
     */
    @Override
    default SnapshotAvailability isSnapshotAvailable(long checkpointId) {
        return SnapshotAvailability.available();
    }

    /** Checkpoint {@code checkpointId}, which holds this enumerator's state, completed. */
    default void notifyCheckpointComplete(long checkpointId) throws Exception {}

    @Override
    default void close() throws Exception {}
}
