package io.duraflow.jobstore;

class InMemoryJobGraphStoreTest extends JobGraphStoreContractTest {
    @Override
    protected JobGraphStore createStore() {
        return new InMemoryJobGraphStore();
    }
}
