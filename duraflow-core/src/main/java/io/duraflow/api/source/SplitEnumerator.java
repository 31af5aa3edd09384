package io.duraflow.api.source;

import java.util.List;

/**
 * Hands out splits to readers. Called only from the JobManager's main thread, so
 * implementations need no synchronization.
 */
public interface SplitEnumerator<S extends SourceSplit> extends AutoCloseable {
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

    @Override
    default void close() throws Exception {}
}
