package io.duraflow.state.heap;

import io.duraflow.state.backend.KeyedStateBackendContractTest;
import io.duraflow.state.backend.StateBackend;

class HeapKeyedStateBackendTest extends KeyedStateBackendContractTest {
    @Override
    protected StateBackend stateBackend() {
        return new HeapStateBackend();
    }
}
