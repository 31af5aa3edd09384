package io.duraflow.api.sink;

/** Where a sink writer runs. */
public interface SinkContext {
    String jobId();

    int subtaskIndex();

    int parallelism();

    /** 0 for the first run of this subtask, 1 for the first retry, and so on. */
    int attemptNumber();
}
