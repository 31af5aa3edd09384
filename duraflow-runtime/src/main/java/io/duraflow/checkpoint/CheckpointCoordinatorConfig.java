package io.duraflow.checkpoint;

import io.duraflow.config.CheckpointingOptions;
import io.duraflow.config.Configuration;
import java.time.Duration;

/**
 * The coordinator's settings, from {@link CheckpointingOptions}.
 *
 * @param intervalMs time between periodic triggers; 0 = no periodic checkpoints (triggered by hand only)
 */
public record CheckpointCoordinatorConfig(long intervalMs, long timeoutMs, long minPauseMs, int maxConcurrent,
        int tolerableFailures, int numRetained, int maxParallelism) {
    public CheckpointCoordinatorConfig {
        if (intervalMs < 0 || timeoutMs <= 0 || minPauseMs < 0 || maxConcurrent < 1 || tolerableFailures < 0
                || numRetained < 1 || maxParallelism < 1) {
            throw new IllegalArgumentException("invalid checkpoint coordinator settings " + this);
        }
    }

    /**
     * @throws io.duraflow.config.IllegalConfigurationException if the interval is set without a directory
     */
    public static CheckpointCoordinatorConfig fromConfiguration(Configuration config) {
        CheckpointingOptions.validate(config);
        Duration interval = config.get(CheckpointingOptions.INTERVAL);
        return new CheckpointCoordinatorConfig(interval == null ? 0 : interval.toMillis(),
                config.get(CheckpointingOptions.TIMEOUT).toMillis(),
                config.get(CheckpointingOptions.MIN_PAUSE).toMillis(),
                config.get(CheckpointingOptions.MAX_CONCURRENT_CHECKPOINTS),
                config.get(CheckpointingOptions.TOLERABLE_FAILED_CHECKPOINTS),
                config.get(CheckpointingOptions.NUM_RETAINED),
                config.get(CheckpointingOptions.MAX_PARALLELISM));
    }
}
