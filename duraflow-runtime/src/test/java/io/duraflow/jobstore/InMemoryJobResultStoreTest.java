package io.duraflow.jobstore;

import java.time.Clock;
import java.time.Duration;

class InMemoryJobResultStoreTest extends JobResultStoreContractTest {
    @Override
    protected JobResultStore createStore(boolean deleteOnCommit, Duration cleanTtlOrNull, Clock clock) {
        return new InMemoryJobResultStore(deleteOnCommit, cleanTtlOrNull, clock);
    }
}
