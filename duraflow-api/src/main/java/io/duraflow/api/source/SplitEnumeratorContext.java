package io.duraflow.api.source;

import java.util.concurrent.Callable;
import java.util.function.BiConsumer;

/** What an enumerator may do; all calls from the JobManager's main thread. */
public interface SplitEnumeratorContext<S extends SourceSplit> {
    int parallelism();

    void assignSplit(S split, int subtask);

    void signalNoMoreSplits(int subtask);

    /**
     * Runs {@code work} (blocking I/O such as listing a directory) on a worker thread after
     * {@code initialDelayMs}, then every {@code periodMs} ({@code 0}: once), and hands each result
     * or failure to {@code handler} on the main thread, where the enumerator may assign splits.
     * Stops when the enumerator is closed.
     */
    <T> void callAsync(Callable<T> work, BiConsumer<T, Throwable> handler, long initialDelayMs, long periodMs);
}
