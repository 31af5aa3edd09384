package io.duraflow.taskmanager.task;

import io.duraflow.api.metrics.MetricSample;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.TaskMetricsSample;
import java.util.List;

/**
 * A running streaming task as the TaskManager's metrics see it: its last counter sample (taken on
 * the task thread for the heartbeat) and what names it.
 *
 * @param startedAtNanos when the task's loop was created, on the clock of {@code sample}
 * @param userMetrics    what its user code's metrics were at the same sample
 */
public record TaskMetricsView(AttemptId attempt, String jobName, String vertexName, long startedAtNanos,
        TaskMetricsSample sample, List<MetricSample> userMetrics) {
    public TaskMetricsView {
        userMetrics = List.copyOf(userMetrics);
    }

    /** Time the task was neither idle nor backpressured, from its start to the sample, in nanoseconds. */
    public long busyNanos() {
        return Math.max(0, sample.getSampledAtNanos() - startedAtNanos - sample.getIdleNanos()
                - sample.getBackpressuredNanos());
    }
}
