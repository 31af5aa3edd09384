package io.duraflow.jobmanager.store;

class InMemoryJobGraphStoreTest extends JobGraphStoreContractTest {
    @Override
    protected JobGraphStore createStore() {
        return new InMemoryJobGraphStore();
    }
}
