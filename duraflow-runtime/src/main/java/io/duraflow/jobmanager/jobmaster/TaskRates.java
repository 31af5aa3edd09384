package io.duraflow.jobmanager.jobmaster;

import io.duraflow.jobmanager.jobmaster.execution.Execution;
import io.duraflow.jobmanager.jobmaster.execution.ExecutionState;

import io.duraflow.rpc.proto.TaskMetricsSample;
import io.duraflow.rpc.proto.VertexRates;
import java.util.HashMap;
import java.util.Map;

/**
 * What {@code duraflow status} shows of running streaming tasks: per vertex records in and out
 * per second and busy / backpressured / idle time in milliseconds per second, over the last
 * interval between two samples of each subtask. Pure; main thread only, like the {@link JobMaster}.
 *
 * <ol>
 *   <li>Each TaskManager heartbeat carries a running task's cumulative counters, sampled on the
 *       task thread with its TaskManager's monotonic clock ({@link TaskMetricsSample}).</li>
 *   <li>A subtask's rate is the difference of its last two samples of the same attempt divided by
 *       the time between them; samples of another attempt start over (a restart resets the
 *       counters), and a sample no newer than the last (the task did not sample again between two
 *       heartbeats) is ignored.</li>
 *   <li>Busy time is what the interval leaves after idle and backpressured time, clamped to
 *       0..1000 ms per second.</li>
 *   <li>A vertex sums its subtasks' record rates and averages their times, over the running
 *       subtasks that have a rate; a vertex without any has no rates.</li>
 * </ol>
 *
 * <p>A running subtask's last sample also gives its records in and out so far, which {@code
 * status} adds to those of the finished subtasks.
 */
final class TaskRates {
    private static final double NANOS_PER_SECOND = 1e9;
    private static final double MS_PER_SECOND = 1000;

    /** One subtask's rate over its last interval. */
    record Rate(double recordsInPerSecond, double recordsOutPerSecond, double busyMsPerSecond,
            double backpressuredMsPerSecond, double idleMsPerSecond) {}

    private static final class Samples {
        final int attempt;
        TaskMetricsSample previous;
        TaskMetricsSample latest;

        Samples(int attempt, TaskMetricsSample latest) {
            this.attempt = attempt;
            this.latest = latest;
        }
    }

    /** By vertex, then subtask. */
    private final Map<Integer, Map<Integer, Samples>> samples = new HashMap<>();

    /** A sample of a subtask's current {@code attempt} (rules 1, 2). */
    void record(int vertex, int subtask, int attempt, TaskMetricsSample sample) {
        Map<Integer, Samples> bySubtask = samples.computeIfAbsent(vertex, v -> new HashMap<>());
        Samples known = bySubtask.get(subtask);
        if (known == null || known.attempt != attempt) {
            bySubtask.put(subtask, new Samples(attempt, sample));
        } else if (sample.getSampledAtNanos() > known.latest.getSampledAtNanos()) {
            known.previous = known.latest;
            known.latest = sample;
        }
    }

    /** The subtask's attempt's rate over its last interval, or null without two samples of that attempt. */
    Rate rate(int vertex, int subtask, int attempt) {
        Samples known = samples.getOrDefault(vertex, Map.of()).get(subtask);
        if (known == null || known.attempt != attempt || known.previous == null) {
            return null;
        }
        return between(known.previous, known.latest);
    }

    /** The subtask's attempt's last sample (its counters so far), or null. */
    TaskMetricsSample latest(int vertex, int subtask, int attempt) {
        Samples known = samples.getOrDefault(vertex, Map.of()).get(subtask);
        return known == null || known.attempt != attempt ? null : known.latest;
    }

    /** Rules 2 and 3: the rate between two samples of one attempt, {@code later} taken after {@code earlier}. */
    static Rate between(TaskMetricsSample earlier, TaskMetricsSample later) {
        double seconds = (later.getSampledAtNanos() - earlier.getSampledAtNanos()) / NANOS_PER_SECOND;
        double idle = msPerSecond(later.getIdleNanos() - earlier.getIdleNanos(), seconds);
        double backpressured = msPerSecond(later.getBackpressuredNanos() - earlier.getBackpressuredNanos(), seconds);
        double busy = Math.max(0, Math.min(MS_PER_SECOND, MS_PER_SECOND - idle - backpressured));
        return new Rate((later.getRecordsIn() - earlier.getRecordsIn()) / seconds,
                (later.getRecordsOut() - earlier.getRecordsOut()) / seconds, busy, backpressured, idle);
    }

    private static double msPerSecond(long nanos, double seconds) {
        return Math.max(0, Math.min(MS_PER_SECOND, nanos / 1e6 / seconds));
    }

    /** Rule 4: the vertex's rates over its running subtasks with a rate, or null if none has one. */
    VertexRates vertexRates(int vertex, Execution[] subtasks) {
        if (subtasks == null) {
            return null;
        }
        VertexRates.Builder rates = VertexRates.newBuilder();
        int counted = 0;
        for (Execution execution : subtasks) {
            Rate rate = execution.state() == ExecutionState.RUNNING
                    ? rate(vertex, execution.subtask(), execution.attempt()) : null;
            if (rate == null) {
                continue;
            }
            counted++;
            rates.setRecordsInPerSecond(rates.getRecordsInPerSecond() + rate.recordsInPerSecond())
                    .setRecordsOutPerSecond(rates.getRecordsOutPerSecond() + rate.recordsOutPerSecond())
                    .setBusyMsPerSecond(rates.getBusyMsPerSecond() + rate.busyMsPerSecond())
                    .setBackpressuredMsPerSecond(rates.getBackpressuredMsPerSecond()
                            + rate.backpressuredMsPerSecond())
                    .setIdleMsPerSecond(rates.getIdleMsPerSecond() + rate.idleMsPerSecond());
        }
        if (counted == 0) {
            return null;
        }
        return rates.setBusyMsPerSecond(rates.getBusyMsPerSecond() / counted)
                .setBackpressuredMsPerSecond(rates.getBackpressuredMsPerSecond() / counted)
                .setIdleMsPerSecond(rates.getIdleMsPerSecond() / counted).setSubtasks(counted).build();
    }
}
