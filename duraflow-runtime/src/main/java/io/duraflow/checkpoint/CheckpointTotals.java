package io.duraflow.checkpoint;

import java.util.Map;

/**
 * What a job's checkpoint coordinator counted since its JobMaster started (a new leader starts
 * again from 0), for the metrics endpoint: an immutable copy taken on the main thread.
 *
 * @param completed checkpoints and savepoints completed
 * @param failedByReason checkpoints and savepoints that failed, by reason; a decline by a source
 *     that is not ready is {@link CheckpointFailureReason#SNAPSHOT_UNAVAILABLE_SOFT} (soft) or
 *     {@link CheckpointFailureReason#SNAPSHOT_UNAVAILABLE_HARD} (hard)
 * @param durationUpperBoundsSeconds the upper bounds of {@code durationCounts}, the last +Inf
 * @param durationCounts completed checkpoints (not savepoints) by duration, trigger to completion:
 *     {@code durationCounts[i]} took more than bound {@code i - 1} and at most bound {@code i}
 * @param durationSumSeconds the sum of their durations
 * @param latestCompleted the latest completed checkpoint (not savepoint) of this JobMaster, or null
 * @param inProgress checkpoints and savepoints in progress now
 */
public record CheckpointTotals(long completed, Map<CheckpointFailureReason, Long> failedByReason,
        double[] durationUpperBoundsSeconds, long[] durationCounts, double durationSumSeconds,
        CheckpointStats latestCompleted, int inProgress) {
    /** Upper bounds of the duration histogram, in seconds. */
    static final double[] DURATION_BOUNDS_SECONDS = {0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600,
            Double.POSITIVE_INFINITY};

    public CheckpointTotals {
        failedByReason = Map.copyOf(failedByReason);
        durationUpperBoundsSeconds = durationUpperBoundsSeconds.clone();
        durationCounts = durationCounts.clone();
    }

    public long failed() {
        return failedByReason.values().stream().mapToLong(Long::longValue).sum();
    }

    public long failed(CheckpointFailureReason reason) {
        return failedByReason.getOrDefault(reason, 0L);
    }

    @Override
    public double[] durationUpperBoundsSeconds() {
        return durationUpperBoundsSeconds.clone();
    }

    @Override
    public long[] durationCounts() {
        return durationCounts.clone();
    }
}
