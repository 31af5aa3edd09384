package io.duraflow.state.heap;

import io.duraflow.state.backend.KeyedStateBackendContractTest;
import io.duraflow.state.backend.StateBackend;

/** The contract again with snapshots small enough to travel inline (no files). */
class HeapKeyedStateBackendInlineTest extends KeyedStateBackendContractTest {
    @Override
    protected StateBackend stateBackend() {
        return new HeapStateBackend();
    }

    @Override
    public int inlineThresholdBytes() {
        return 1024 * 1024;
    }
}
