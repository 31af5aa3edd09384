package io.duraflow.api.functions;

import io.duraflow.api.metrics.MetricGroup;
import io.duraflow.api.state.KeyedStateStore;

/** What a function learns about where it runs, and where its keyed state lives. */
public interface RuntimeContext {
    int subtaskIndex();

    int parallelism();

    /** 0 for the first run of this subtask, counting up with every restart. */
    int attemptNumber();

    /** Keyed state, scoped to the key of the record (or timer) being processed. */
    KeyedStateStore state();

    /** Where the function registers its metrics, exported with the task's; see {@link MetricGroup}. */
    default MetricGroup metrics() {
        return MetricGroup.discarding();
    }
}
