package io.duraflow.state.loader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.config.ConfigRegistry;
import io.duraflow.config.Configuration;
import io.duraflow.config.IllegalConfigurationException;
import io.duraflow.config.StateOptions;
import io.duraflow.state.heap.HeapStateBackend;
import io.duraflow.state.rocksdb.RocksDBStateBackend;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StateBackendLoaderTest {
    @Test
    void heapIsTheDefaultAndCanBeNamed() {
        assertThat(StateBackendLoader.fromConfiguration(new Configuration())).isInstanceOf(HeapStateBackend.class);
        Configuration heap = Configuration.fromMap(Map.of("state.backend.type", "heap"));
        assertThat(StateBackendLoader.fromConfiguration(heap).name()).isEqualTo("heap");
    }

    @Test
    void rocksdbIsChosenByName() {
        Configuration rocksdb = Configuration.fromMap(Map.of("state.backend.type", "rocksdb",
                "state.backend.incremental", "false"));
        assertThat(StateBackendLoader.fromConfiguration(rocksdb)).isInstanceOf(RocksDBStateBackend.class)
                .satisfies(backend -> assertThat(((RocksDBStateBackend) backend).incremental()).isFalse());
        assertThat(StateBackendLoader.fromConfiguration(rocksdb).name()).isEqualTo("rocksdb");
    }

    @Test
    void anUnknownBackendOrABadThresholdIsAConfigurationError() {
        assertThatThrownBy(() -> StateBackendLoader.fromConfiguration(
                Configuration.fromMap(Map.of("state.backend.type", "memory"))))
                .isInstanceOf(IllegalConfigurationException.class).hasMessageContaining("state.backend.type");
        assertThatThrownBy(() -> Configuration.fromMap(Map.of("state.storage.inline-threshold", "2 mb"))
                .get(StateOptions.INLINE_THRESHOLD))
                .isInstanceOf(IllegalConfigurationException.class).hasMessageContaining("1 mb");
        assertThat(ConfigRegistry.global().toString()).isNotNull();
    }
}
