package io.duraflow.state.loader;

import io.duraflow.config.Configuration;
import io.duraflow.config.StateOptions;
import io.duraflow.state.backend.StateBackend;
import io.duraflow.state.heap.HeapStateBackend;
import io.duraflow.state.rocksdb.RocksDBStateBackend;

/**
 * Picks the {@link StateBackend} that {@code state.backend.type} names. Lives apart from the
 * backend interfaces so that they do not depend on their implementations.
 */
public final class StateBackendLoader {
    private StateBackendLoader() {
    }

    public static StateBackend fromConfiguration(Configuration configuration) {
        return switch (configuration.get(StateOptions.BACKEND_TYPE)) {
            case HEAP -> new HeapStateBackend();
            case ROCKSDB -> new RocksDBStateBackend(configuration);
        };
    }
}
