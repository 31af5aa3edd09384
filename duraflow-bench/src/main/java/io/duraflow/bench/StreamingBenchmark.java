package io.duraflow.bench;

import io.duraflow.examples.StreamingKeyedSum;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * The streaming benchmark: the keyed sum on Duraflow and, with the {@code flink} profile, on Apache
 * Flink 2.3's MiniCluster, with a failure run and a throttled run. See
 * docs/design/benchmarks.md#streamingbenchmark.
 */
public final class StreamingBenchmark {
    static final int PARALLELISM = 2;
    static final long THROTTLED_RATE = 10_000;
    static final Duration THROTTLED_TIME = Duration.ofSeconds(12);

    /** The figures compared with Flink's: records/s, checkpoint duration median (ms), recovery (ms). */
    record Figures(double recordsPerSecond, long checkpointMedianMillis, double recoveryMillis,
            double cpuNanosPerRecord) {}

    public static void main(String[] args) throws Exception {
        long records = Long.getLong("bench.streaming-records", StreamingKeyedSum.DEFAULT_RECORDS);
        long keys = Long.getLong("bench.streaming-keys", StreamingKeyedSum.DEFAULT_KEYS);
        int taskManagers = Integer.getInteger("bench.streaming-taskmanagers", 1);
        if (taskManagers < 1 || taskManagers > 2) {
            throw new IllegalArgumentException("bench.streaming-taskmanagers must be 1 or 2, not " + taskManagers);
        }
        System.out.printf("Streaming keyed-sum benchmark: %,d records, %,d keys, parallelism %d, checkpoints every"
                        + " 1 s, heap state, Duraflow on %d TaskManager process(es), %d cores,"
                        + " load average %s%n", records, keys, PARALLELISM, taskManagers,
                Runtime.getRuntime().availableProcessors(), loadAverage());
        boolean exact = true;
        Figures duraflow;
        try (DuraflowStreamingRuns runs = DuraflowStreamingRuns.start(PARALLELISM, taskManagers)) {
            DuraflowStreamingRuns.Run plain = runs.run(records, keys, false);
            plain.lines().forEach(line -> System.out.println("duraflow " + line));
            DuraflowStreamingRuns.Run failure = runs.run(records, keys, true);
            failure.lines().forEach(line -> System.out.println("duraflow " + line));
            exact = plain.exact() && failure.exact();
            runs.throttled(keys, THROTTLED_RATE, THROTTLED_TIME).forEach(line -> System.out.println("duraflow " + line));
            duraflow = new Figures(plain.recordsPerSecond(), plain.checkpointMedianMillis(), failure.recoveryMillis(),
                    plain.taskManagerCpuNanosPerRecord());
        }
        System.out.printf("load average after Duraflow's runs: %s%n", loadAverage());
        Figures flink = runFlink(records, keys);
        exact &= flinkExact;
        if (flink != null) {
            System.out.printf("load average after Flink's runs: %s%n", loadAverage());
            compare(duraflow, flink);
        }
        if (!exact) {
            throw new IllegalStateException("benchmark result is wrong: a run's keyed sums are not exact (see above)");
        }
    }

    private static void compare(Figures duraflow, Figures flink) {
        System.out.println("duraflow vs flink 2.3.0:");
        double throughput = duraflow.recordsPerSecond() / flink.recordsPerSecond();
        System.out.printf(Locale.ROOT, "  throughput          %,12.0f vs %,12.0f records/s = %.2fx  (target >= 2x: %s)%n",
                duraflow.recordsPerSecond(), flink.recordsPerSecond(), throughput, pass(throughput >= 2));
        double checkpoint = (double) duraflow.checkpointMedianMillis() / flink.checkpointMedianMillis();
        System.out.printf(Locale.ROOT, "  checkpoint median   %,12d vs %,12d ms        = %.2f   (target <= 1: %s)%n",
                duraflow.checkpointMedianMillis(), flink.checkpointMedianMillis(), checkpoint, pass(checkpoint <= 1));
        double recovery = duraflow.recoveryMillis() / flink.recoveryMillis();
        System.out.printf(Locale.ROOT, "  recovery            %,12.0f vs %,12.0f ms        = %.2f   (target < 1: %s)%n",
                duraflow.recoveryMillis(), flink.recoveryMillis(), recovery,
                pass(duraflow.recoveryMillis() >= 0 && recovery < 1));
        System.out.printf(Locale.ROOT, "  CPU per record      %,12.0f vs %,12.0f ns        = %.2f   (Duraflow: its TaskManager"
                        + " processes; Flink: this JVM while its MiniCluster ran; not a target, but less sensitive to"
                        + " other load than records/s)%n", duraflow.cpuNanosPerRecord(), flink.cpuNanosPerRecord(),
                duraflow.cpuNanosPerRecord() / flink.cpuNanosPerRecord());
    }

    private static String pass(boolean met) {
        return met ? "met" : "NOT met";
    }

    private static String loadAverage() {
        try {
            String[] fields = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).split(" ");
            return fields[0] + " " + fields[1] + " " + fields[2];
        } catch (java.io.IOException | RuntimeException e) {
            return String.format(Locale.ROOT, "%.2f", java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                    .getSystemLoadAverage());
        }
    }

    /** Whether Flink's results were exact; set by {@link #runFlink}. */
    private static boolean flinkExact = true;

    /** Runs Flink's side without and with a failure; null when not built with -Pflink. */
    private static Figures runFlink(long records, long keys) throws Exception {
        Class<?> flink;
        try {
            flink = Class.forName("io.duraflow.bench.flink.FlinkStreamingKeyedSum");
        } catch (ClassNotFoundException e) {
            System.out.println("flink: not measured (build with -Pflink to compare with Apache Flink 2.3.0)");
            return null;
        }
        Method run = flink.getMethod("run", long.class, long.class, int.class, boolean.class);
        double recordsPerSecond = 0;
        long checkpointMedian = 0;
        double recovery = -1;
        double cpuNanosPerRecord = Double.NaN;
        for (boolean failHalfway : new boolean[] {false, true}) {
            Object result;
            long cpuBefore = processCpuNanos();
            try {
                result = run.invoke(null, records, keys, PARALLELISM, failHalfway);
            } catch (InvocationTargetException e) {
                throw e.getCause() instanceof Exception cause ? cause : e;
            }
            double cpuPerRecord = (double) (processCpuNanos() - cpuBefore) / records;
            @SuppressWarnings("unchecked")
            List<String> lines = (List<String>) call(result, "lines");
            for (String line : lines) {
                System.out.println("flink 2.3.0 " + line);
            }
            System.out.printf(Locale.ROOT, "flink 2.3.0 %s: CPU %,.0f ns per record (this JVM, MiniCluster start to"
                    + " stop)%n", failHalfway ? "failure run" : "run", cpuPerRecord);
            flinkExact &= (boolean) call(result, "exact");
            if (failHalfway) {
                recovery = (double) call(result, "recoveryMillis");
            } else {
                recordsPerSecond = (double) call(result, "recordsPerSecond");
                checkpointMedian = (long) call(result, "checkpointMedianMillis");
                cpuNanosPerRecord = cpuPerRecord;
            }
        }
        return new Figures(recordsPerSecond, checkpointMedian, recovery, cpuNanosPerRecord);
    }

    /** CPU time of this JVM, all threads; Flink's MiniCluster runs in it. */
    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
                .getOperatingSystemMXBean()).getProcessCpuTime();
    }

    private static Object call(Object target, String method) throws ReflectiveOperationException {
        return target.getClass().getMethod(method).invoke(target);
    }
}
