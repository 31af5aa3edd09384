package io.duraflow.api.source;

import io.duraflow.api.functions.Collector;
import java.util.List;

/**
 * Reads splits in a task. Single-threaded: the task thread calls every method, including the
 * delivery of splits from the enumerator, so implementations need no synchronization.
 */
public interface SourceReader<T, S extends SourceSplit> extends AutoCloseable {
    /** Called once before anything else; typically asks for the first split. */
    void start();

    /** Emits a bounded batch of records (a few thousand at most) and says what comes next. */
    InputStatus pollNext(Collector<T> output) throws Exception;

    void addSplits(List<S> splits);

    void notifyNoMoreSplits();

    /** The splits this reader holds and has not finished, with their progress. */
    List<S> snapshotState(long checkpointId);

    @Override
    default void close() throws Exception {}
}
