package io.duraflow.bench;

import java.util.Map;
import java.util.Properties;

/**
 * One engine's run of one Nexmark query: what {@link NexmarkBenchmark} prints and checks. Flink's
 * side runs in a JVM of its own and hands its runs over as text properties ({@link #put}, {@link
 * #from}).
 *
 * @param query q0 .. q11
 * @param events events read
 * @param jobMillis the job's run time as the engine reports it (Duraflow: submission to end;
 *     Flink: the job's net run time)
 * @param cpuNanos CPU time (user + system) the engine used while the job ran: Duraflow's
 *     TaskManager processes; Flink's whole JVM (its MiniCluster runs in it); -1 if unknown
 * @param checkpoints checkpoints completed during the run
 * @param checkpointsFailed checkpoints that failed during the run
 * @param checkpointAvgMillis their average duration, trigger to completion; -1 without any
 * @param results results the run produced (q4: categories with a final average)
 * @param hashSum the sum of their hashes ({@link NexmarkDigest})
 * @param firstResultMillis from the job's start to its first result reaching the sink; -1 without results
 * @param lastResultMillis from the job's start to its last result reaching the sink; -1 without results
 */
public record NexmarkRun(String query, long events, long jobMillis, long cpuNanos, int checkpoints,
        int checkpointsFailed, long checkpointAvgMillis, long results, long hashSum, long firstResultMillis,
        long lastResultMillis) {

    public double eventsPerSecond() {
        return jobMillis > 0 ? events * 1000.0 / jobMillis : Double.NaN;
    }

    /** CPU milliseconds per million events; NaN if unknown. */
    public double cpuMillisPerMillionEvents() {
        return cpuNanos < 0 ? Double.NaN : cpuNanos / 1e6 / (events / 1e6);
    }

    public NexmarkDigest.Digest digest() {
        return new NexmarkDigest.Digest(results, hashSum);
    }

    /** This run under another name (the key prefix of {@link #put}). */
    public NexmarkRun renamed(String name) {
        return new NexmarkRun(name, events, jobMillis, cpuNanos, checkpoints, checkpointsFailed, checkpointAvgMillis,
                results, hashSum, firstResultMillis, lastResultMillis);
    }

    /** Writes this run into {@code into} under keys {@code <query>.<figure>}. */
    public void put(Map<Object, Object> into) {
        into.put(query + ".events", Long.toString(events));
        into.put(query + ".job.millis", Long.toString(jobMillis));
        into.put(query + ".cpu.nanos", Long.toString(cpuNanos));
        into.put(query + ".checkpoints", Integer.toString(checkpoints));
        into.put(query + ".checkpoints.failed", Integer.toString(checkpointsFailed));
        into.put(query + ".checkpoint.avg.millis", Long.toString(checkpointAvgMillis));
        into.put(query + ".results", Long.toString(results));
        into.put(query + ".hash", Long.toHexString(hashSum));
        into.put(query + ".first.result.millis", Long.toString(firstResultMillis));
        into.put(query + ".last.result.millis", Long.toString(lastResultMillis));
    }

    /** The run of {@code query} that {@link #put} wrote into {@code from}; null if there is none. */
    public static NexmarkRun from(Properties from, String query) {
        if (from.getProperty(query + ".events") == null) {
            return null;
        }
        return new NexmarkRun(query, number(from, query + ".events"), number(from, query + ".job.millis"),
                number(from, query + ".cpu.nanos"), (int) number(from, query + ".checkpoints"),
                (int) number(from, query + ".checkpoints.failed"), number(from, query + ".checkpoint.avg.millis"),
                number(from, query + ".results"), Long.parseUnsignedLong(from.getProperty(query + ".hash"), 16),
                number(from, query + ".first.result.millis"), number(from, query + ".last.result.millis"));
    }

    private static long number(Properties from, String key) {
        return Long.parseLong(from.getProperty(key));
    }
}
