package io.duraflow.api.sink;

/** Where a flow's records end up. One writer per parallel task. */
public interface Sink<T> {
    SinkWriter<T> createWriter(SinkContext context) throws Exception;

    /** Identifies the sink's configuration for the plan fingerprint. */
    String description();
}
