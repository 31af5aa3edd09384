package io.duraflow.state.rocksdb;

import io.duraflow.config.Configuration;
import io.duraflow.state.backend.KeyedStateBackendContractTest;
import io.duraflow.state.backend.StateBackend;
import java.util.Map;

/** The backend contract without the write-back cache: every read and write is a RocksDB call. */
class RocksDBUncachedBackendTest extends KeyedStateBackendContractTest {
    @Override
    protected StateBackend stateBackend() {
        return new RocksDBStateBackend(Configuration.fromMap(Map.of("state.backend.rocksdb.write-back-cache.size",
                "0 bytes")));
    }
}
