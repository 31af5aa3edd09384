package io.duraflow.state.rocksdb;

import io.duraflow.config.Configuration;
import io.duraflow.state.backend.KeyedStateBackendContractTest;
import io.duraflow.state.backend.StateBackend;
import java.util.Map;

/** The backend contract with the smallest write-back cache, so that most writes are evicted and written back. */
class RocksDBSmallCacheBackendTest extends KeyedStateBackendContractTest {
    @Override
    protected StateBackend stateBackend() {
        return new RocksDBStateBackend(Configuration.fromMap(Map.of("state.backend.rocksdb.write-back-cache.size",
                "64 kb")));
    }
}
