package io.duraflow.state.rocksdb;

import io.duraflow.config.Configuration;
import io.duraflow.config.StateOptions;
import io.duraflow.state.backend.KeyedBackendParameters;
import io.duraflow.state.backend.KeyedStateBackend;
import io.duraflow.state.backend.OperatorBackendParameters;
import io.duraflow.state.backend.OperatorStateBackend;
import io.duraflow.state.backend.StateBackend;
import io.duraflow.state.operator.DefaultOperatorStateBackend;
import java.io.IOException;

/**
 * {@code state.backend.type: rocksdb}: keyed state in a local RocksDB database per operator
 * instance (in {@link KeyedBackendParameters#localDirectory()}, deleted on dispose), checkpointed
 * incrementally unless {@code state.backend.incremental} is false; savepoints in the canonical
 * format. Native memory and upload threads are shared by the TaskManager's backends ({@code
 * state.backend.rocksdb.*}); each backend has a write-back cache of {@code
 * state.backend.rocksdb.write-back-cache.size} on the heap. Operator state in the {@link DefaultOperatorStateBackend} every backend
 * shares.
 */
public final class RocksDBStateBackend implements StateBackend {
    public static final String NAME = "rocksdb";

    private final boolean incremental;
    private final RocksDBResources.Settings settings;
    private final long writeBackCacheBytes;

    public RocksDBStateBackend(Configuration configuration) {
        this.incremental = configuration.get(StateOptions.INCREMENTAL);
        this.settings = new RocksDBResources.Settings(configuration.get(StateOptions.ROCKSDB_MEMORY_SIZE).bytes(),
                configuration.get(StateOptions.ROCKSDB_WRITE_BUFFER_RATIO),
                configuration.get(StateOptions.ROCKSDB_UPLOAD_THREADS));
        this.writeBackCacheBytes = configuration.get(StateOptions.ROCKSDB_WRITE_BACK_CACHE_SIZE).bytes();
    }

    @Override
    public String name() {
        return NAME;
    }

    public boolean incremental() {
        return incremental;
    }

    @Override
    public <K> KeyedStateBackend<K> createKeyedStateBackend(KeyedBackendParameters<K> parameters) throws IOException {
        return RocksDBKeyedStateBackend.create(parameters, incremental, settings, writeBackCacheBytes);
    }

    @Override
    public OperatorStateBackend createOperatorStateBackend(OperatorBackendParameters parameters) throws IOException {
        return DefaultOperatorStateBackend.restore(parameters);
    }
}
