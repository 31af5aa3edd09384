package io.duraflow.jobmanager.jobmaster.failover;

import io.duraflow.jobmanager.jobmaster.execution.RestartStrategy;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.config.Configuration;
import io.duraflow.config.IllegalConfigurationException;
import io.duraflow.config.RestartStrategyType;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class RestartBackoffTest {
    private static RestartBackoff exponential(int attempts, double jitter, double random) {
        return new RestartBackoff(RestartStrategyType.EXPONENTIAL_DELAY, attempts, 1_000, 10_000, 2.0, 60_000,
                jitter, () -> random);
    }

    @Test
    void fixedDelayWaitsTheSameEachTimeUntilItsAttemptsAreUsed() {
        RestartBackoff backoff = RestartBackoff.start(RestartStrategy.fixedDelay(2, 300));
        assertThat(backoff.onFailure(0)).hasValue(300);
        assertThat(backoff.onFailure(10_000_000)).hasValue(300);
        assertThat(backoff.onFailure(20_000_000)).isEmpty();
        assertThat(backoff.exhaustedReason()).isEqualTo("the restart strategy allowed 2 restarts");
    }

    @Test
    void exponentialDelayGrowsByTheMultiplierUpToTheMaximum() {
        RestartBackoff backoff = exponential(Integer.MAX_VALUE, 0, 0.5);
        long now = 0;
        long[] delays = new long[6];
        for (int i = 0; i < delays.length; i++) {
            delays[i] = backoff.onFailure(now += 100).getAsLong();
        }
        assertThat(delays).containsExactly(1_000, 2_000, 4_000, 8_000, 10_000, 10_000);
    }

    @Test
    void exponentialDelayResetsAfterTheJobRanStablyForTheThreshold() {
        RestartBackoff backoff = exponential(2, 0, 0.5);
        assertThat(backoff.onFailure(0)).hasValue(1_000);
        assertThat(backoff.onFailure(5_000)).hasValue(2_000);
        assertThat(backoff.onFailure(10_000)).isEmpty();
        // A failure long after the last one: the job ran stably, so delay and budget start over.
        assertThat(backoff.onFailure(10_000 + 60_001)).hasValue(1_000);
        assertThat(backoff.restarts()).isEqualTo(1);
    }

    @Test
    void jitterSpreadsTheDelayByUpToItsFactorEitherWay() {
        assertThat(exponential(5, 0.1, 0.0).onFailure(0)).hasValue(900);
        assertThat(exponential(5, 0.1, 0.999_999).onFailure(0)).hasValue(1_100);
        assertThat(exponential(5, 0.1, 0.5).onFailure(0)).hasValue(1_000);
    }

    @Test
    void noneNeverRestarts() {
        RestartBackoff backoff = RestartBackoff.start(RestartStrategy.none());
        assertThat(backoff.onFailure(0)).isEqualTo(OptionalLong.empty());
        assertThat(backoff.exhaustedReason()).isEqualTo("restart-strategy.type is none");
    }

    @Test
    void configurationBuildsTheStrategyAndRefusesAMaximumBelowTheInitialDelay() {
        RestartBackoff fromConfig = RestartBackoff.start(RestartStrategy.fromConfiguration(Configuration.fromMap(
                Map.of("restart-strategy.type", "exponential-delay",
                        "restart-strategy.exponential-delay.initial-backoff", "200 ms",
                        "restart-strategy.exponential-delay.jitter-factor", "0"))));
        assertThat(fromConfig.onFailure(0)).hasValue(200);
        assertThat(fromConfig.onFailure(1)).hasValue(400);

        assertThatThrownBy(() -> RestartStrategy.fromConfiguration(Configuration.fromMap(Map.of(
                "restart-strategy.type", "exponential-delay",
                "restart-strategy.exponential-delay.initial-backoff", "2 min"))))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessageContaining("restart-strategy.exponential-delay.max-backoff (1 min) must not be shorter than");
    }
}
