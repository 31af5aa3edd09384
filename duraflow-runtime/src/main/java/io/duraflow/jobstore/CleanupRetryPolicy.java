package io.duraflow.jobstore;

import io.duraflow.config.CleanupOptions;
import io.duraflow.config.CleanupOptions.CleanupStrategyType;
import io.duraflow.config.Configuration;
import io.duraflow.config.IllegalConfigurationException;
import java.time.Duration;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * When to retry a failed cleanup step of a finished job ({@code cleanup-strategy.*}). Pure and
 * immutable: the caller counts failures and schedules the retry.
 *
 * <pre>
 *   failed attempts n      1      2      3      4     ...
 *   exponential-delay   initial  2x     4x     8x    ... capped at max-backoff
 *   fixed-delay          delay  delay  delay  delay
 *   none                 (none)
 * </pre>
 *
 * A limit of {@code k} retries allows delays for {@code n = 1..k} and none after; 0 means no limit.
 */
public final class CleanupRetryPolicy {
    private final CleanupStrategyType type;
    private final long initialDelayMs;
    private final long maxDelayMs;
    /** 0: no limit. */
    private final int maxRetries;

    private CleanupRetryPolicy(CleanupStrategyType type, long initialDelayMs, long maxDelayMs, int maxRetries) {
        this.type = type;
        this.initialDelayMs = initialDelayMs;
        this.maxDelayMs = maxDelayMs;
        this.maxRetries = maxRetries;
    }

    /**
     * The policy the {@link CleanupOptions} in {@code config} describe.
     *
     * @throws IllegalConfigurationException if the maximum backoff is shorter than the initial one
     */
    public static CleanupRetryPolicy fromConfiguration(Configuration config) {
        return switch (config.get(CleanupOptions.STRATEGY_TYPE)) {
            case EXPONENTIAL_DELAY -> {
                Duration initial = config.get(CleanupOptions.EXPONENTIAL_DELAY_INITIAL_BACKOFF);
                Duration max = config.get(CleanupOptions.EXPONENTIAL_DELAY_MAX_BACKOFF);
                if (max.compareTo(initial) < 0) {
                    throw new IllegalConfigurationException(CleanupOptions.EXPONENTIAL_DELAY_MAX_BACKOFF.key() + " ("
                            + CleanupOptions.EXPONENTIAL_DELAY_MAX_BACKOFF.format(max) + ") must not be shorter than "
                            + CleanupOptions.EXPONENTIAL_DELAY_INITIAL_BACKOFF.key() + " ("
                            + CleanupOptions.EXPONENTIAL_DELAY_INITIAL_BACKOFF.format(initial) + ")");
                }
                yield exponentialDelay(initial, max, config.get(CleanupOptions.EXPONENTIAL_DELAY_MAX_ATTEMPTS));
            }
            case FIXED_DELAY -> fixedDelay(config.get(CleanupOptions.FIXED_DELAY_DELAY),
                    config.get(CleanupOptions.FIXED_DELAY_ATTEMPTS));
            case NONE -> none();
        };
    }

    /**
     * Doubles the delay after each failure, from {@code initial} up to {@code max}.
     *
     * @param maxRetries retries before giving up; 0 for no limit
     */
    public static CleanupRetryPolicy exponentialDelay(Duration initial, Duration max, int maxRetries) {
        long initialMs = positiveMillis(initial, "initial backoff");
        long maxMs = positiveMillis(max, "max backoff");
        if (maxMs < initialMs) {
            throw new IllegalArgumentException("max backoff " + max + " is shorter than initial backoff " + initial);
        }
        return new CleanupRetryPolicy(CleanupStrategyType.EXPONENTIAL_DELAY, initialMs, maxMs,
                requireRetries(maxRetries));
    }

    /**
     * Waits {@code delay} before each retry.
     *
     * @param maxRetries retries before giving up; 0 for no limit
     */
    public static CleanupRetryPolicy fixedDelay(Duration delay, int maxRetries) {
        Objects.requireNonNull(delay, "delay");
        if (delay.isNegative()) {
            throw new IllegalArgumentException("delay must not be negative: " + delay);
        }
        long delayMs = delay.toMillis();
        return new CleanupRetryPolicy(CleanupStrategyType.FIXED_DELAY, delayMs, delayMs, requireRetries(maxRetries));
    }

    /** Never retries. */
    public static CleanupRetryPolicy none() {
        return new CleanupRetryPolicy(CleanupStrategyType.NONE, 0, 0, 0);
    }

    /**
     * How long to wait before the next attempt, in milliseconds.
     *
     * @param failedAttempts attempts that failed so far, at least 1
     * @return the delay, or empty if the step must not be retried any more
     */
    public OptionalLong delayBeforeAttempt(int failedAttempts) {
        if (failedAttempts < 1) {
            throw new IllegalArgumentException("failedAttempts must be at least 1: " + failedAttempts);
        }
        if (type == CleanupStrategyType.NONE || (maxRetries > 0 && failedAttempts > maxRetries)) {
            return OptionalLong.empty();
        }
        if (type == CleanupStrategyType.FIXED_DELAY) {
            return OptionalLong.of(initialDelayMs);
        }
        int doublings = failedAttempts - 1;
        // initial * 2^doublings without overflow: stop doubling once it reaches the cap.
        if (doublings >= Long.numberOfLeadingZeros(initialDelayMs) - 1) {
            return OptionalLong.of(maxDelayMs);
        }
        return OptionalLong.of(Math.min(initialDelayMs << doublings, maxDelayMs));
    }

    public CleanupStrategyType type() {
        return type;
    }

    @Override
    public String toString() {
        return switch (type) {
            case NONE -> "CleanupRetryPolicy[none]";
            case FIXED_DELAY -> "CleanupRetryPolicy[fixed-delay " + initialDelayMs + " ms, " + retries() + "]";
            case EXPONENTIAL_DELAY -> "CleanupRetryPolicy[exponential-delay " + initialDelayMs + " ms to "
                    + maxDelayMs + " ms, " + retries() + "]";
        };
    }

    private String retries() {
        return maxRetries == 0 ? "unlimited retries" : "at most " + maxRetries + " retries";
    }

    private static long positiveMillis(Duration duration, String what) {
        Objects.requireNonNull(duration, what);
        if (duration.isNegative() || duration.toMillis() == 0) {
            throw new IllegalArgumentException(what + " must be at least 1 ms: " + duration);
        }
        return duration.toMillis();
    }

    private static int requireRetries(int maxRetries) {
        if (maxRetries < 0) {
            throw new IllegalArgumentException("max retries must not be negative (0 = no limit): " + maxRetries);
        }
        return maxRetries;
    }
}
