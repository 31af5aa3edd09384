package io.duraflow.config;

/** How a job is restarted after a task fails; the value of {@code restart-strategy.type}. */
public enum RestartStrategyType {
    /** Restart up to {@code restart-strategy.fixed-delay.attempts} times, waiting a fixed delay before each. */
    FIXED_DELAY,
    /**
     * Restart after a delay that grows by {@code restart-strategy.exponential-delay.backoff-multiplier}
     * with each failure, up to a maximum, and falls back to the initial delay once the job ran
     * without failure for {@code restart-strategy.exponential-delay.reset-backoff-threshold}.
     */
    EXPONENTIAL_DELAY,
    /** Never restart: the first failure fails the job. */
    NONE
}
