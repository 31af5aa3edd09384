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
}
