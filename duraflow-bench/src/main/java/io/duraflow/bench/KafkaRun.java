package io.duraflow.bench;

import java.util.Locale;

/**
 * One engine's figures for one run of {@link KafkaBenchmark}'s job, as the engine reports them.
 * Flink's side runs in a JVM of its own and hands them over as one line of text ({@link #line},
 * {@link #parse}).
 *
 * @param jobMillis the job's run time (Duraflow: submission to end; Flink: the job's net run
 *     time); for an unbounded run, from its start until it was cancelled
 * @param cpuNanos CPU time (user + system) the engine used during the run: Duraflow's TaskManager
 *     process; Flink's whole JVM (its MiniCluster runs in it); -1 if unknown
 * @param checkpoints checkpoints completed during the run
 * @param checkpointsFailed checkpoints that failed during the run
 * @param checkpointAvgMillis their average duration, trigger to completion; -1 without any
 */
public record KafkaRun(long jobMillis, long cpuNanos, int checkpoints, int checkpointsFailed,
        long checkpointAvgMillis) {

    /** Records per second for {@code records} read in {@link #jobMillis}. */
    public double recordsPerSecond(long records) {
        return jobMillis > 0 ? records * 1000.0 / jobMillis : Double.NaN;
    }

    /** CPU milliseconds per million of {@code records}; NaN if unknown. */
    public double cpuMillisPerMillion(long records) {
        return cpuNanos < 0 || records <= 0 ? Double.NaN : cpuNanos / 1e6 / (records / 1e6);
    }

    /** The figures on one line, {@code jobMillis cpuNanos checkpoints checkpointsFailed checkpointAvgMillis}. */
    public String line() {
        return String.format(Locale.ROOT, "%d %d %d %d %d", jobMillis, cpuNanos, checkpoints, checkpointsFailed,
                checkpointAvgMillis);
    }

    public static KafkaRun parse(String line) {
        String[] f = line.trim().split(" ");
        if (f.length != 5) {
            throw new IllegalArgumentException("not the figures of a Kafka run: '" + line + "'");
        }
        return new KafkaRun(Long.parseLong(f[0]), Long.parseLong(f[1]), Integer.parseInt(f[2]),
                Integer.parseInt(f[3]), Long.parseLong(f[4]));
    }
}
