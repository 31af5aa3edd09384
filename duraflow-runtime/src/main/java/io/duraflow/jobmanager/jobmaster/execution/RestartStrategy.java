package io.duraflow.jobmanager.jobmaster.execution;

import io.duraflow.config.Configuration;
import io.duraflow.config.ExecutionOptions;
import io.duraflow.config.IllegalConfigurationException;
import io.duraflow.config.RestartStrategyType;
import java.time.Duration;

/**
 * A restart strategy as configured; {@code RestartBackoff.start} makes the
 * stateful back-off of one job.
 */
public record RestartStrategy(RestartStrategyType type, int attempts, long initialMs, long maxMs, double multiplier,
        long resetThresholdMs, double jitter) {
    public static RestartStrategy fixedDelay(int attempts, long delayMs) {
        return new RestartStrategy(RestartStrategyType.FIXED_DELAY, attempts, delayMs, delayMs, 1.0, Long.MAX_VALUE, 0);
    }

    public static RestartStrategy none() {
        return new RestartStrategy(RestartStrategyType.NONE, 0, 0, 0, 1.0, Long.MAX_VALUE, 0);
    }

    /**
     * The strategy the {@code restart-strategy.*} options in {@code config} describe.
     *
     * @throws IllegalConfigurationException if the maximum backoff is shorter than the initial one
     */
    public static RestartStrategy fromConfiguration(Configuration config) {
        RestartStrategyType type = config.get(ExecutionOptions.RESTART_STRATEGY_TYPE);
        return switch (type) {
            case FIXED_DELAY -> fixedDelay(config.get(ExecutionOptions.FIXED_DELAY_ATTEMPTS),
                    config.get(ExecutionOptions.FIXED_DELAY_DELAY).toMillis());
            case EXPONENTIAL_DELAY -> {
                Duration initial = config.get(ExecutionOptions.EXPONENTIAL_DELAY_INITIAL_BACKOFF);
                Duration max = config.get(ExecutionOptions.EXPONENTIAL_DELAY_MAX_BACKOFF);
                if (max.compareTo(initial) < 0) {
                    throw new IllegalConfigurationException(ExecutionOptions.EXPONENTIAL_DELAY_MAX_BACKOFF.key()
                            + " (" + ExecutionOptions.EXPONENTIAL_DELAY_MAX_BACKOFF.format(max) + ") must not be"
                            + " shorter than " + ExecutionOptions.EXPONENTIAL_DELAY_INITIAL_BACKOFF.key() + " ("
                            + ExecutionOptions.EXPONENTIAL_DELAY_INITIAL_BACKOFF.format(initial) + ")");
                }
                yield new RestartStrategy(type, config.get(ExecutionOptions.EXPONENTIAL_DELAY_ATTEMPTS), initial.toMillis(),
                        max.toMillis(), config.get(ExecutionOptions.EXPONENTIAL_DELAY_MULTIPLIER),
                        config.get(ExecutionOptions.EXPONENTIAL_DELAY_RESET_THRESHOLD).toMillis(),
                        config.get(ExecutionOptions.EXPONENTIAL_DELAY_JITTER));
            }
            case NONE -> none();
        };
    }
}
