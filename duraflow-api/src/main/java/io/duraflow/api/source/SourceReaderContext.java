package io.duraflow.api.source;

import io.duraflow.api.metrics.MetricGroup;

/** What a reader may do; all calls from the task thread. */
public interface SourceReaderContext {
    int subtaskIndex();

    int parallelism();

    /** Asks the enumerator for another split; it answers with addSplits or notifyNoMoreSplits. */
    void sendSplitRequest();

    /** Where the reader registers its metrics, exported with the task's; see {@link MetricGroup}. */
    default MetricGroup metrics() {
        return MetricGroup.discarding();
    }
}
