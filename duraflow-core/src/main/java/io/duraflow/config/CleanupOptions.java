package io.duraflow.config;

import java.time.Duration;

/**
 * Options for retrying the cleanup of a finished job's resources (its stored job graph, its
 * checkpoints, its entry in the job result store). Cleanup steps are idempotent, so a failed one
 * is simply run again after a delay; a job's result is marked clean only when every step has
 * succeeded, so a job manager that takes over finishes what its predecessor started.
 *
 * <p>Attempt counts are retries: with {@code attempts: 3} a step runs at most four times. 0 means
 * retry until the step succeeds, which is the default because giving up leaks resources.
 */
public final class CleanupOptions {
    /** How a failed cleanup step is retried; value of {@code cleanup-strategy.type}. */
    public enum CleanupStrategyType {
        /** Wait twice as long after each failure, from an initial to a maximum delay. */
        EXPONENTIAL_DELAY,
        /** Wait the same delay after each failure. */
        FIXED_DELAY,
        /** Never retry: a failed step stays undone until another job manager takes over. */
        NONE
    }

    public static final ConfigOption<CleanupStrategyType> STRATEGY_TYPE = ConfigOption.key("cleanup-strategy.type")
            .enumType(CleanupStrategyType.class)
            .defaultValue(CleanupStrategyType.EXPONENTIAL_DELAY)
            .description("How a failed cleanup of a finished job is retried: 'exponential-delay' doubles the delay"
                    + " after each failure, 'fixed-delay' waits the same delay, 'none' does not retry.");

    public static final ConfigOption<Duration> EXPONENTIAL_DELAY_INITIAL_BACKOFF =
            ConfigOption.key("cleanup-strategy.exponential-delay.initial-backoff")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(1))
                    .validator(ConfigValidator.positiveDuration())
                    .description("Delay before the first retry of a failed cleanup step.");

    public static final ConfigOption<Duration> EXPONENTIAL_DELAY_MAX_BACKOFF =
            ConfigOption.key("cleanup-strategy.exponential-delay.max-backoff")
                    .durationType()
                    .defaultValue(Duration.ofHours(1))
                    .validator(ConfigValidator.positiveDuration())
                    .description("Longest delay between retries of a failed cleanup step;"
                            + " must not be shorter than the initial backoff.");

    public static final ConfigOption<Integer> EXPONENTIAL_DELAY_MAX_ATTEMPTS =
            ConfigOption.key("cleanup-strategy.exponential-delay.max-attempts")
                    .intType()
                    .defaultValue(0)
                    .validator(ConfigValidator.intAtLeast(0))
                    .description("Number of times a failed cleanup step is retried before the job manager gives up;"
                            + " 0 means retry until it succeeds.");

    public static final ConfigOption<Duration> FIXED_DELAY_DELAY = ConfigOption.key("cleanup-strategy.fixed-delay.delay")
            .durationType()
            .defaultValue(Duration.ofMinutes(1))
            .description("Delay before each retry of a failed cleanup step.");

    public static final ConfigOption<Integer> FIXED_DELAY_ATTEMPTS =
            ConfigOption.key("cleanup-strategy.fixed-delay.attempts")
                    .intType()
                    .defaultValue(0)
                    .validator(ConfigValidator.intAtLeast(0))
                    .description("Number of times a failed cleanup step is retried before the job manager gives up;"
                            + " 0 means retry until it succeeds.");

    private CleanupOptions() {
    }
}
