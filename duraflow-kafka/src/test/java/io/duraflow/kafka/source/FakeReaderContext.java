package io.duraflow.kafka.source;

import io.duraflow.api.source.SourceReaderContext;

final class FakeReaderContext implements SourceReaderContext {
    int splitRequests;

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
}
