package io.duraflow.config;

/** How a job is restarted after a task fails; the value of {@code restart-strategy.type}. */
public enum RestartStrategyType {
    /** Restart up to {@code restart-strategy.fixed-delay.attempts} times, waiting a fixed delay before each. */
    FIXED_DELAY,
    /** Never restart: the first failure fails the job. */
    NONE
}
