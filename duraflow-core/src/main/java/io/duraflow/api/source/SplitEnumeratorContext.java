package io.duraflow.api.source;

/** What an enumerator may do; all calls from the JobManager's main thread. */
public interface SplitEnumeratorContext<S extends SourceSplit> {
    int parallelism();

    void assignSplit(S split, int subtask);

    void signalNoMoreSplits(int subtask);
}
