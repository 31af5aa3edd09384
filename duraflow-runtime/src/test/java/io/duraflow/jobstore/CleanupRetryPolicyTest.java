package io.duraflow.jobstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.config.CleanupOptions;
import io.duraflow.config.CleanupOptions.CleanupStrategyType;
import io.duraflow.config.Configuration;
import io.duraflow.config.IllegalConfigurationException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class CleanupRetryPolicyTest {
    private static List<Long> delaysMs(CleanupRetryPolicy policy, int failures) {
        List<Long> delays = new ArrayList<>();
        for (int n = 1; n <= failures; n++) {
            OptionalLong delay = policy.delayBeforeAttempt(n);
            delays.add(delay.isPresent() ? delay.getAsLong() : null);
        }
        return delays;
    }

    @Test
    void defaultIsExponentialFromOneSecondToOneHourWithoutLimit() {
        CleanupRetryPolicy policy = CleanupRetryPolicy.fromConfiguration(new Configuration());

        assertThat(policy.type()).isEqualTo(CleanupStrategyType.EXPONENTIAL_DELAY);
        assertThat(delaysMs(policy, 14)).containsExactly(1_000L, 2_000L, 4_000L, 8_000L, 16_000L, 32_000L, 64_000L,
                128_000L, 256_000L, 512_000L, 1_024_000L, 2_048_000L, 3_600_000L, 3_600_000L);
        assertThat(policy.delayBeforeAttempt(1_000)).hasValue(3_600_000L);
        assertThat(policy.delayBeforeAttempt(Integer.MAX_VALUE)).hasValue(3_600_000L);
    }

    @Test
    void exponentialStopsAfterMaxAttemptsRetries() {
        Configuration config = new Configuration()
                .set(CleanupOptions.EXPONENTIAL_DELAY_INITIAL_BACKOFF, Duration.ofMillis(100))
                .set(CleanupOptions.EXPONENTIAL_DELAY_MAX_BACKOFF, Duration.ofMillis(250))
                .set(CleanupOptions.EXPONENTIAL_DELAY_MAX_ATTEMPTS, 4);

        assertThat(delaysMs(CleanupRetryPolicy.fromConfiguration(config), 6))
                .containsExactly(100L, 200L, 250L, 250L, null, null);
    }

    @Test
    void exponentialDoesNotOverflowForLongDelays() {
        CleanupRetryPolicy policy = CleanupRetryPolicy.exponentialDelay(Duration.ofDays(1), Duration.ofDays(36500), 0);

        assertThat(policy.delayBeforeAttempt(2)).hasValue(Duration.ofDays(2).toMillis());
        assertThat(policy.delayBeforeAttempt(40)).hasValue(Duration.ofDays(36500).toMillis());
        assertThat(policy.delayBeforeAttempt(64)).hasValue(Duration.ofDays(36500).toMillis());
        assertThat(CleanupRetryPolicy.exponentialDelay(Duration.ofMillis(1), Duration.ofMillis(Long.MAX_VALUE), 0)
                .delayBeforeAttempt(63)).hasValue(Long.MAX_VALUE);
    }

    @Test
    void fixedDelayWaitsTheSameEachTime() {
        Configuration config = new Configuration().set(CleanupOptions.STRATEGY_TYPE, CleanupStrategyType.FIXED_DELAY);

        assertThat(delaysMs(CleanupRetryPolicy.fromConfiguration(config), 5))
                .containsExactly(60_000L, 60_000L, 60_000L, 60_000L, 60_000L);
        assertThat(CleanupRetryPolicy.fromConfiguration(config).delayBeforeAttempt(Integer.MAX_VALUE))
                .hasValue(60_000L);
    }

    @Test
    void fixedDelayStopsAfterItsAttempts() {
        Configuration config = new Configuration().set(CleanupOptions.STRATEGY_TYPE, CleanupStrategyType.FIXED_DELAY)
                .set(CleanupOptions.FIXED_DELAY_DELAY, Duration.ofSeconds(5))
                .set(CleanupOptions.FIXED_DELAY_ATTEMPTS, 2);

        assertThat(delaysMs(CleanupRetryPolicy.fromConfiguration(config), 4)).containsExactly(5_000L, 5_000L, null, null);
    }

    @Test
    void fixedDelayMayBeZero() {
        assertThat(CleanupRetryPolicy.fixedDelay(Duration.ZERO, 1).delayBeforeAttempt(1)).hasValue(0);
    }

    @Test
    void noneNeverRetries() {
        Configuration config = new Configuration().set(CleanupOptions.STRATEGY_TYPE, CleanupStrategyType.NONE);

        assertThat(CleanupRetryPolicy.fromConfiguration(config).delayBeforeAttempt(1)).isEmpty();
        assertThat(CleanupRetryPolicy.none().delayBeforeAttempt(5)).isEmpty();
    }

    @Test
    void maxBackoffShorterThanInitialIsAConfigurationError() {
        Configuration config = new Configuration()
                .set(CleanupOptions.EXPONENTIAL_DELAY_INITIAL_BACKOFF, Duration.ofMinutes(1))
                .set(CleanupOptions.EXPONENTIAL_DELAY_MAX_BACKOFF, Duration.ofSeconds(10));

        assertThatThrownBy(() -> CleanupRetryPolicy.fromConfiguration(config))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessage("cleanup-strategy.exponential-delay.max-backoff (10 s) must not be shorter than"
                        + " cleanup-strategy.exponential-delay.initial-backoff (1 min)");
    }

    @Test
    void invalidArgumentsAreRejected() {
        CleanupRetryPolicy policy = CleanupRetryPolicy.none();

        assertThatThrownBy(() -> policy.delayBeforeAttempt(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CleanupRetryPolicy.fixedDelay(Duration.ofSeconds(1), -1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CleanupRetryPolicy.exponentialDelay(Duration.ZERO, Duration.ofSeconds(1), 0))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
