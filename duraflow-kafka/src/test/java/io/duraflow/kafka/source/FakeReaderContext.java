package io.duraflow.kafka.source;

import io.duraflow.api.metrics.MetricGroup;
import io.duraflow.api.metrics.MetricRegistry;
import io.duraflow.api.source.SourceReaderContext;

final class FakeReaderContext implements SourceReaderContext {
    int splitRequests;
    final MetricRegistry metrics = new MetricRegistry();

    @Override
    public int subtaskIndex() {
        return 0;
    }

    @Override
    public int parallelism() {
        return 1;
    }

    @Override
    public void sendSplitRequest() {
        splitRequests++;
    }

    @Override
    public MetricGroup metrics() {
        return metrics;
    }
}
