package io.duraflow.bench;

import io.duraflow.examples.StreamingKeyedSum;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.List;

/**
 * The streaming benchmark of issue 9: the keyed sum ({@link StreamingKeyedSum}: generated records
 * (i * 7919 % keys, i), keyBy, a value state with (sum, count) per key, nothing emitted per record)
 * at parallelism 2, checkpoints every 1 s, heap state, on Duraflow and, when built with the
 * {@code flink} profile, on Apache Flink 2.3's MiniCluster in the same run.
 *
 * <p>Prints per engine: records/s, checkpoint duration (median, max), checkpoint size, the
 * exactness check (sum of sums = N(N-1)/2, one record per key), and for a second run with a task
 * exception when about half the input is processed: how long until records flow again and how many were replayed, with the
 * exactness check again. Fails (non-zero exit) when a result is not exact.
 *
 * <pre>
 *   ./mvnw -q -o -DskipTests -Pbench,flink -pl duraflow-bench -am package \
 *       -Dbench.main=io.duraflow.bench.StreamingBenchmark [-Dbench.streaming-records=50000000]
 *       [-Dbench.streaming-keys=100000]
 * </pre>
 */
public final class StreamingBenchmark {
    static final int PARALLELISM = 2;

    public static void main(String[] args) throws Exception {
        long records = Long.getLong("bench.streaming-records", StreamingKeyedSum.DEFAULT_RECORDS);
        long keys = Long.getLong("bench.streaming-keys", StreamingKeyedSum.DEFAULT_KEYS);
        System.out.printf("Streaming keyed-sum benchmark: %,d records, %,d keys, parallelism %d, checkpoints every"
                        + " 1 s, heap state, %d cores%n", records, keys, PARALLELISM,
                Runtime.getRuntime().availableProcessors());
        runDuraflow(records, keys);
        boolean flinkExact = runFlink(records, keys);
        if (!flinkExact) {
            throw new IllegalStateException("benchmark result is wrong: Flink's keyed sums are not exact (see above)");
        }
    }

    /**
     * The Duraflow side. Streaming jobs do not run end to end before the integration step of issue
     * 9; once they do, this runs {@link StreamingKeyedSum} (params {@code records}, {@code keys})
     * on a {@code LocalCluster} of 1 JobManager and 2 TaskManagers (with {@code duraflow.classpath}
     * set without Flink's jars, as WordCountBenchmark does) with {@code execution.runtime-mode:
     * streaming}, {@code execution.checkpointing.interval: 1 s}, heap state and a fixed-delay 0 s
     * restart strategy; checks the collected "sums" with {@link StreamingKeyedSum#verify}; reads
     * checkpoint durations and sizes from the coordinator's statistics ({@code duraflow
     * checkpoints}); repeats with the job's {@code fail-at} parameter at an index reached about
     * half way through (a task exception in attempt 0; Duraflow's generator deals indexes by
     * stride, so records / 2 is such an index, unlike in Flink's contiguous ranges) for recovery time and records replayed; and runs once more with {@code rate}
     * throttled to 10,000 records/s to print the network memory in use. Then it prints the same
     * lines as Flink's and the ratios against the targets (throughput >= 2x Flink's, checkpoint
     * duration <= Flink's, recovery sooner than Flink's).
     */
    private static void runDuraflow(long records, long keys) {
        System.out.println("duraflow: not measured yet (streaming runs after the integration step)");
    }

    /** Runs Flink's side without and with a failure; false when a result is not exact. */
    private static boolean runFlink(long records, long keys) throws Exception {
        Class<?> flink;
        try {
            flink = Class.forName("io.duraflow.bench.flink.FlinkStreamingKeyedSum");
        } catch (ClassNotFoundException e) {
            System.out.println("flink: not measured (build with -Pflink to compare with Apache Flink 2.3.0)");
            return true;
        }
        Method run = flink.getMethod("run", long.class, long.class, int.class, boolean.class);
        boolean exact = true;
        for (boolean failHalfway : new boolean[] {false, true}) {
            Object result;
            try {
                result = run.invoke(null, records, keys, PARALLELISM, failHalfway);
            } catch (InvocationTargetException e) {
                throw e.getCause() instanceof Exception cause ? cause : e;
            }
            @SuppressWarnings("unchecked")
            List<String> lines = (List<String>) result.getClass().getMethod("lines").invoke(result);
            for (String line : lines) {
                System.out.println("flink 2.3.0 " + line);
            }
            exact &= (boolean) result.getClass().getMethod("exact").invoke(result);
        }
        return exact;
    }
}
