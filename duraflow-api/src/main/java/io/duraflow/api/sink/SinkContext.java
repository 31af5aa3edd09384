package io.duraflow.api.sink;

import io.duraflow.api.metrics.MetricGroup;
import java.time.Duration;
import java.util.Optional;

/** Where a sink writer runs. */
public interface SinkContext {
    String jobId();

    int subtaskIndex();

    int parallelism();

    /** 0 for the first run of this subtask, 1 for the first retry, and so on. */
    int attemptNumber();

    /**
     * The job's {@code execution.checkpointing.interval}; empty when it takes no checkpoints
     * (batch jobs, and streaming jobs without the option). A sink whose prepared output must
     * survive until its checkpoint completes (say, an external transaction with a timeout) checks
     * its limits against this and {@link #checkpointTimeout()}.
     */
    default Optional<Duration> checkpointInterval() {
        return Optional.empty();
    }

    /** The job's {@code execution.checkpointing.timeout}: how long a checkpoint may take before it is aborted. */
    default Duration checkpointTimeout() {
        return Duration.ofMinutes(10);
    }

    /**
     * Where the writer and the committer register their metrics, exported with the task's; see
     * {@link MetricGroup}.
     */
    default MetricGroup metrics() {
        return MetricGroup.discarding();
    }
}
