package io.duraflow.exchange.pipelined;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.config.Configuration;
import io.duraflow.config.IllegalConfigurationException;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NetworkOptionsTest {
    @Test
    void defaultsGive2048BuffersOf32KiBAnd100MsBufferTimeout() {
        Configuration configuration = Configuration.fromMap(Map.of());
        NetworkBufferPool pool = NetworkBufferPool.fromConfiguration(configuration);
        PipelinedPartitionSettings settings = PipelinedPartitionSettings.fromConfiguration(configuration);

        assertThat(pool.totalBuffers()).isEqualTo(2048);
        assertThat(pool.bufferSize()).isEqualTo(32 * 1024);
        assertThat(settings).isEqualTo(new PipelinedPartitionSettings(4, 5, Duration.ofMillis(100)));
    }

    @Test
    void optionsAreKnownAndValidated() {
        Configuration configuration = Configuration.fromMap(Map.of("taskmanager.network.memory", "8 mb",
                "taskmanager.network.buffer-size", "64 kb", "execution.buffer-timeout", "0 ms"));
        assertThat(NetworkBufferPool.fromConfiguration(configuration).totalBuffers()).isEqualTo(128);
        assertThat(PipelinedPartitionSettings.fromConfiguration(configuration).bufferTimeout()).isZero();

        assertThatThrownBy(() -> Configuration.fromMap(Map.of("taskmanager.network.buffer-size", "100 b")))
                .isInstanceOf(IllegalConfigurationException.class).hasMessageContaining("buffer-size");
    }
}
