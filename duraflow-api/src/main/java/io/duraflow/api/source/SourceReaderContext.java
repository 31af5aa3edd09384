package io.duraflow.api.source;

/** What a reader may do; all calls from the task thread. */
public interface SourceReaderContext {
    int subtaskIndex();

    int parallelism();

    /** Asks the enumerator for another split; it answers with addSplits or notifyNoMoreSplits. */
    void sendSplitRequest();
}
