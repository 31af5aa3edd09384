package io.duraflow.jobmanager.jobmaster.failover;

import io.duraflow.jobmanager.jobmaster.execution.RestartStrategy;
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
    /** The stateful back-off of one job, following {@code strategy}. */
    public static RestartBackoff start(RestartStrategy strategy) {
        return start(strategy, Math::random);
    }

    /** @param random uniform in [0, 1), for the jitter */
    public static RestartBackoff start(RestartStrategy strategy, DoubleSupplier random) {
        return new RestartBackoff(strategy.type(), strategy.attempts(), strategy.initialMs(), strategy.maxMs(),
                strategy.multiplier(), strategy.resetThresholdMs(), strategy.jitter(), random);
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
