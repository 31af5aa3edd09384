package io.duraflow.checkpoint;

import io.duraflow.config.CheckpointingOptions;
import io.duraflow.config.Configuration;
import java.time.Duration;

/**
 * The coordinator's settings, from {@link CheckpointingOptions}.
 *
 * @param intervalMs time between periodic triggers; 0 = no periodic checkpoints (triggered by hand only)
 * @param failureTimeoutMs longest time without a completed checkpoint before the job fails over; 0 = no limit
 * @param softDeclineRetryMs after a soft decline, the next periodic trigger comes this soon (doubling while soft
 *     declines repeat, up to the interval: {@link SoftDeclineBackoff}); 0 = one interval later
 */
public record CheckpointCoordinatorConfig(long intervalMs, long timeoutMs, long minPauseMs, int maxConcurrent,
        int tolerableFailures, int numRetained, int maxParallelism, long failureTimeoutMs, long softDeclineRetryMs) {
    public CheckpointCoordinatorConfig {
        if (intervalMs < 0 || timeoutMs <= 0 || minPauseMs < 0 || maxConcurrent < 1 || tolerableFailures < 0
                || numRetained < 1 || maxParallelism < 1 || failureTimeoutMs < 0 || softDeclineRetryMs < 0) {
            throw new IllegalArgumentException("invalid checkpoint coordinator settings " + this);
        }
    }

    /** Settings without a failure timeout and without a soft-decline retry. */
    public CheckpointCoordinatorConfig(long intervalMs, long timeoutMs, long minPauseMs, int maxConcurrent,
            int tolerableFailures, int numRetained, int maxParallelism) {
        this(intervalMs, timeoutMs, minPauseMs, maxConcurrent, tolerableFailures, numRetained, maxParallelism, 0, 0);
    }

    /**
     * @throws io.duraflow.config.IllegalConfigurationException if the interval is set without a directory
     */
    public static CheckpointCoordinatorConfig fromConfiguration(Configuration config) {
        CheckpointingOptions.validate(config);
        Duration interval = config.get(CheckpointingOptions.INTERVAL);
        Duration failureTimeout = config.get(CheckpointingOptions.TOLERABLE_FAILED_CHECKPOINTS_TIMEOUT);
        return new CheckpointCoordinatorConfig(interval == null ? 0 : interval.toMillis(),
                config.get(CheckpointingOptions.TIMEOUT).toMillis(),
                config.get(CheckpointingOptions.MIN_PAUSE).toMillis(),
                config.get(CheckpointingOptions.MAX_CONCURRENT_CHECKPOINTS),
                config.get(CheckpointingOptions.TOLERABLE_FAILED_CHECKPOINTS),
                config.get(CheckpointingOptions.NUM_RETAINED),
                config.get(CheckpointingOptions.MAX_PARALLELISM),
                failureTimeout == null ? 0 : failureTimeout.toMillis(),
                config.get(CheckpointingOptions.SOFT_DECLINE_RETRY_DELAY).toMillis());
    }
}
