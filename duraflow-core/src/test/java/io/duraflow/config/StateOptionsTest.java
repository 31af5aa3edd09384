package io.duraflow.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.config.StateOptions.StateBackendType;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StateOptionsTest {
    @Test
    void defaultsAndText() {
        assertThat(new Configuration().get(StateOptions.BACKEND_TYPE)).isEqualTo(StateBackendType.HEAP);
        assertThat(new Configuration().get(StateOptions.INLINE_THRESHOLD)).isEqualTo(MemorySize.ofKibiBytes(16));

        Configuration config = Configuration.fromMap(Map.of("state.backend.type", "heap",
                "state.storage.inline-threshold", "0 bytes"), ConfigRegistry.global(), "test");
        assertThat(config.get(StateOptions.INLINE_THRESHOLD).bytes()).isZero();
    }

    @Test
    void theOptionsAreRegisteredAndValidated() {
        assertThatThrownBy(() -> Configuration.fromMap(Map.of("state.storage.inline-treshold", "1 kb"),
                ConfigRegistry.global(), "test")).isInstanceOf(IllegalConfigurationException.class)
                .hasMessageContaining("state.storage.inline-threshold");
        assertThatThrownBy(() -> Configuration.fromMap(Map.of("state.storage.inline-threshold", "2 mb"),
                ConfigRegistry.global(), "test").get(StateOptions.INLINE_THRESHOLD))
                .isInstanceOf(IllegalConfigurationException.class).hasMessageContaining("1 mb");
    }

    @Test
    void rocksdbOptionsHaveDefaultsAndAreValidated() {
        Configuration defaults = new Configuration();
        assertThat(defaults.get(StateOptions.INCREMENTAL)).isTrue();
        assertThat(defaults.get(StateOptions.ROCKSDB_MEMORY_SIZE)).isEqualTo(MemorySize.ofMebiBytes(256));
        assertThat(defaults.get(StateOptions.ROCKSDB_WRITE_BUFFER_RATIO)).isEqualTo(0.5);
        assertThat(defaults.get(StateOptions.ROCKSDB_UPLOAD_THREADS)).isEqualTo(4);
        assertThat(defaults.get(StateOptions.ROCKSDB_WRITE_BACK_CACHE_SIZE)).isEqualTo(MemorySize.ofMebiBytes(16));
        assertThat(Configuration.fromMap(Map.of("state.backend.rocksdb.write-back-cache.size", "0 bytes"),
                ConfigRegistry.global(), "test").get(StateOptions.ROCKSDB_WRITE_BACK_CACHE_SIZE).bytes()).isZero();
        assertThat(Configuration.fromMap(Map.of("state.backend.type", "rocksdb"), ConfigRegistry.global(), "test")
                .get(StateOptions.BACKEND_TYPE)).isEqualTo(StateBackendType.ROCKSDB);

        assertThatThrownBy(() -> Configuration.fromMap(Map.of("state.backend.rocksdb.memory.size", "1 mb"),
                ConfigRegistry.global(), "test").get(StateOptions.ROCKSDB_MEMORY_SIZE))
                .isInstanceOf(IllegalConfigurationException.class).hasMessageContaining("at least 8 mb");
        assertThatThrownBy(() -> Configuration.fromMap(Map.of("state.backend.rocksdb.upload-threads", "0"),
                ConfigRegistry.global(), "test").get(StateOptions.ROCKSDB_UPLOAD_THREADS))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessageContaining("state.backend.rocksdb.upload-threads");
        assertThatThrownBy(() -> Configuration.fromMap(Map.of("state.backend.rocksdb.write-back-cache.size", "1 kb"),
                ConfigRegistry.global(), "test").get(StateOptions.ROCKSDB_WRITE_BACK_CACHE_SIZE))
                .isInstanceOf(IllegalConfigurationException.class).hasMessageContaining("at least 64 kb");
        assertThatThrownBy(() -> Configuration.fromMap(
                Map.of("state.backend.rocksdb.memory.write-buffer-ratio", "1.5"), ConfigRegistry.global(), "test")
                .get(StateOptions.ROCKSDB_WRITE_BUFFER_RATIO)).isInstanceOf(IllegalConfigurationException.class);
    }
}
