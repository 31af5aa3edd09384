package io.duraflow.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.config.CleanupOptions.CleanupStrategyType;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CleanupOptionsTest {
    @Test
    void defaultsRetryWithExponentialDelayForever() {
        Configuration config = new Configuration();

        assertThat(config.get(CleanupOptions.STRATEGY_TYPE)).isEqualTo(CleanupStrategyType.EXPONENTIAL_DELAY);
        assertThat(config.get(CleanupOptions.EXPONENTIAL_DELAY_INITIAL_BACKOFF)).isEqualTo(Duration.ofSeconds(1));
        assertThat(config.get(CleanupOptions.EXPONENTIAL_DELAY_MAX_BACKOFF)).isEqualTo(Duration.ofHours(1));
        assertThat(config.get(CleanupOptions.EXPONENTIAL_DELAY_MAX_ATTEMPTS)).isZero();
        assertThat(config.get(CleanupOptions.FIXED_DELAY_DELAY)).isEqualTo(Duration.ofMinutes(1));
        assertThat(config.get(CleanupOptions.FIXED_DELAY_ATTEMPTS)).isZero();
    }

    @Test
    void everyOptionReadsFromText() {
        Configuration config = Configuration.fromMap(Map.of(
                "cleanup-strategy.type", "fixed-delay",
                "cleanup-strategy.exponential-delay.initial-backoff", "500 ms",
                "cleanup-strategy.exponential-delay.max-backoff", "10 min",
                "cleanup-strategy.exponential-delay.max-attempts", "20",
                "cleanup-strategy.fixed-delay.delay", "30 s",
                "cleanup-strategy.fixed-delay.attempts", "5"), ConfigRegistry.of(CleanupOptions.class), "test");

        assertThat(config.get(CleanupOptions.STRATEGY_TYPE)).isEqualTo(CleanupStrategyType.FIXED_DELAY);
        assertThat(config.get(CleanupOptions.EXPONENTIAL_DELAY_INITIAL_BACKOFF)).isEqualTo(Duration.ofMillis(500));
        assertThat(config.get(CleanupOptions.EXPONENTIAL_DELAY_MAX_ATTEMPTS)).isEqualTo(20);
        assertThat(config.get(CleanupOptions.FIXED_DELAY_ATTEMPTS)).isEqualTo(5);
        assertThat(CleanupOptions.STRATEGY_TYPE.type().name()).isEqualTo("exponential-delay|fixed-delay|none");
    }

    @Test
    void invalidValuesAreRejected() {
        assertThatThrownBy(() -> CleanupOptions.FIXED_DELAY_ATTEMPTS.parse("-1"))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessage("invalid value '-1' for cleanup-strategy.fixed-delay.attempts: expected an integer >= 0");
        assertThatThrownBy(() -> CleanupOptions.EXPONENTIAL_DELAY_INITIAL_BACKOFF.parse("0 s"))
                .isInstanceOf(IllegalConfigurationException.class);
        assertThatThrownBy(() -> CleanupOptions.STRATEGY_TYPE.parse("forever"))
                .isInstanceOf(IllegalConfigurationException.class);
    }
}
