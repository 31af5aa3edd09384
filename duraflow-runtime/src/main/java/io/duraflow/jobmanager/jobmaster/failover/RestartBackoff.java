package io.duraflow.jobmanager.jobmaster.failover;

import io.duraflow.config.Configuration;
import io.duraflow.config.ExecutionOptions;
import io.duraflow.config.IllegalConfigurationException;
import io.duraflow.config.RestartStrategyType;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.function.DoubleSupplier;

/**
 * Whether, and after which delay, a job restarts after a failure ({@code restart-strategy.*}).
 * Main thread only; the clock is the caller's ({@code nowMs} on every call) and jitter comes from
 * an injected source, so tests are exact.
 *
 * <pre>
 *   failure (since the last reset)   1         2          3           ...
 *   fixed-delay                      delay     delay      delay       ... up to {@code attempts} restarts
 *   exponential-delay                initial   initial*m  initial*m^2 ... capped at max-backoff, +- jitter
 *   none                             fail
 * </pre>
 *
 * Exponential-delay resets (initial delay, full attempt budget) when the failure comes more than
 * {@code reset-backoff-threshold} after the previous one, i.e. after the job ran stably that long.
 */
public final class RestartBackoff {
    /**
     * A restart strategy as configured; {@link #start} makes the stateful {@link RestartBackoff}
     * of one job.
     */
    public record Spec(RestartStrategyType type, int attempts, long initialMs, long maxMs, double multiplier,
            long resetThresholdMs, double jitter) {
        public static Spec fixedDelay(int attempts, long delayMs) {
            return new Spec(RestartStrategyType.FIXED_DELAY, attempts, delayMs, delayMs, 1.0, Long.MAX_VALUE, 0);
        }

        public static Spec none() {
            return new Spec(RestartStrategyType.NONE, 0, 0, 0, 1.0, Long.MAX_VALUE, 0);
        }

        /**
         * The strategy the {@code restart-strategy.*} options in {@code config} describe.
         *
         * @throws IllegalConfigurationException if the maximum backoff is shorter than the initial one
         */
        public static Spec fromConfiguration(Configuration config) {
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
                    yield new Spec(type, config.get(ExecutionOptions.EXPONENTIAL_DELAY_ATTEMPTS), initial.toMillis(),
                            max.toMillis(), config.get(ExecutionOptions.EXPONENTIAL_DELAY_MULTIPLIER),
                            config.get(ExecutionOptions.EXPONENTIAL_DELAY_RESET_THRESHOLD).toMillis(),
                            config.get(ExecutionOptions.EXPONENTIAL_DELAY_JITTER));
                }
                case NONE -> none();
            };
        }

        public RestartBackoff start() {
            return start(Math::random);
        }

        /** @param random uniform in [0, 1), for the jitter */
        public RestartBackoff start(DoubleSupplier random) {
            return new RestartBackoff(type, attempts, initialMs, maxMs, multiplier, resetThresholdMs, jitter, random);
        }
    }

    private final RestartStrategyType type;
    private final int attempts;
    private final long initialMs;
    private final long maxMs;
    private final double multiplier;
    private final long resetThresholdMs;
    private final double jitter;
    /** Uniform in [0, 1). */
    private final DoubleSupplier random;

    /** Restarts since the last reset. */
    private int restarts;
    private double currentMs;
    private long lastFailureMs = Long.MIN_VALUE;

    RestartBackoff(RestartStrategyType type, int attempts, long initialMs, long maxMs, double multiplier,
            long resetThresholdMs, double jitter, DoubleSupplier random) {
        this.type = type;
        this.attempts = attempts;
        this.initialMs = initialMs;
        this.maxMs = maxMs;
        this.multiplier = multiplier;
        this.resetThresholdMs = resetThresholdMs;
        this.jitter = jitter;
        this.random = random;
        this.currentMs = initialMs;
    }

    /**
     * A failure happened at {@code nowMs}: the delay before the restart, or empty when the job
     * must fail instead (the budget is used up, or the strategy is none). Counts the restart.
     */
    public OptionalLong onFailure(long nowMs) {
        if (type == RestartStrategyType.EXPONENTIAL_DELAY && lastFailureMs != Long.MIN_VALUE
                && nowMs - lastFailureMs > resetThresholdMs) {
            restarts = 0;
            currentMs = initialMs;
        }
        lastFailureMs = nowMs;
        if (type == RestartStrategyType.NONE || restarts >= attempts) {
            return OptionalLong.empty();
        }
        restarts++;
        if (type == RestartStrategyType.FIXED_DELAY) {
            return OptionalLong.of(initialMs);
        }
        double base = currentMs;
        currentMs = Math.min(currentMs * multiplier, maxMs);
        double spread = base * jitter * (2 * random.getAsDouble() - 1);
        return OptionalLong.of(Math.max(0, Math.min(maxMs, Math.round(base + spread))));
    }

    /** Restarts counted since the last reset. */
    public int restarts() {
        return restarts;
    }

    /** Why {@link #onFailure} said no, for the job's failure cause. */
    public String exhaustedReason() {
        return type == RestartStrategyType.NONE ? "restart-strategy.type is none"
                : "the restart strategy allowed " + attempts + " restart" + (attempts == 1 ? "" : "s")
                + (type == RestartStrategyType.EXPONENTIAL_DELAY ? " without a reset" : "");
    }
}
