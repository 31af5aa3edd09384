package io.duraflow.state.rocksdb;

import io.duraflow.config.Configuration;
import io.duraflow.state.backend.KeyedStateBackendContractTest;
import io.duraflow.state.backend.StateBackend;

/** The backend contract with the default write-back cache (16 mb). */
class RocksDBKeyedStateBackendTest extends KeyedStateBackendContractTest {
    @Override
    protected StateBackend stateBackend() {
        return new RocksDBStateBackend(new Configuration());
    }
}
