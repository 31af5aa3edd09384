package io.duraflow.taskmanager.task;

import io.duraflow.api.metrics.MetricRegistry;
import io.duraflow.api.metrics.MetricSample;
import io.duraflow.rpc.proto.TaskMetricsSample;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * Where a task thread's time goes, like Flink's busy / backpressured / idle time: the {@link
 * MailboxProcessor} measures each wait (two {@code nanoTime} reads per wait, none per record) and
 * files it as backpressured (an output was unavailable) or idle (waiting for input or mails);
 * everything else is busy. {@link #sample} takes a snapshot with the record counters on the task
 * thread and publishes it for the TaskManager's heartbeat.
 *
 * <p>Threads: {@link #waited} and {@link #sample} on the task thread only; {@link #latest} from any.
 */
final class TaskTimes {
    private final LongSupplier nanoClock;
    /** When the task's loop was created; busy time is what the time since leaves after the waits. */
    private final long startedAtNanos;
    private long idleNanos;
    private long backpressuredNanos;
    /** The last snapshot {@link #sample} published; null before the first. */
    private volatile TaskMetricsSample latest;
    /** The user metrics' values as of {@link #latest}; empty before the first sample. */
    private volatile List<MetricSample> latestUserMetrics = List.of();

    TaskTimes(LongSupplier nanoClock) {
        this.nanoClock = nanoClock;
        this.startedAtNanos = nanoClock.getAsLong();
    }

    /** Any thread: when the task's loop was created, on the task's clock. */
    long startedAtNanos() {
        return startedAtNanos;
    }

    long nanoTime() {
        return nanoClock.getAsLong();
    }

    /** Task thread: the task waited {@code nanos}, for an output if {@code backpressured}, else for input or mail. */
    void waited(boolean backpressured, long nanos) {
        if (nanos <= 0) {
            return;
        }
        if (backpressured) {
            backpressuredNanos += nanos;
        } else {
            idleNanos += nanos;
        }
    }

    /** Task thread: publishes the counters and the user metrics (calling their gauges) as of now. */
    TaskMetricsSample sample(TaskCounters counters, MetricRegistry userMetrics) {
        latestUserMetrics = List.copyOf(userMetrics.sample());
        return sample(counters);
    }

    /** Task thread: publishes the counters as of now. */
    TaskMetricsSample sample(TaskCounters counters) {
        TaskMetricsSample sample = TaskMetricsSample.newBuilder().setSampledAtNanos(nanoClock.getAsLong())
                .setRecordsIn(counters.recordsIn).setRecordsOut(counters.recordsOut).setIdleNanos(idleNanos)
                .setBackpressuredNanos(backpressuredNanos).build();
        latest = sample;
        return sample;
    }

    /** Any thread: the user metrics' values the last {@link #sample(TaskCounters, MetricRegistry)} published. */
    List<MetricSample> latestUserMetrics() {
        return latestUserMetrics;
    }

    /** Any thread: the last published snapshot, or null. */
    TaskMetricsSample latest() {
        return latest;
    }
}
