package io.duraflow.bench;

import io.duraflow.examples.nexmark.NexmarkConfig;
import io.duraflow.examples.nexmark.NexmarkExpected;
import java.io.File;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * The Nexmark benchmark: queries q0, q1, q2, q3, q4, q5, q7, q8 and q11 over the same generated
 * events ({@code NexmarkGenerator}) on Duraflow and, built with the {@code flink} profile, on
 * Apache Flink 2.3.0, in the same run, each result checked against {@link NexmarkExpected}.
 *
 * <ul>
 *   <li>Duraflow: {@code NexmarkDigestJob} on a local cluster ({@link DuraflowNexmarkRuns}).
 *   <li>Flink: the same queries with the DataStream API on a MiniCluster, in a JVM of its own
 *       ({@code FlinkNexmark}, {@code FlinkNexmarkQueries}).
 *   <li>Both: parallelism 2, streaming, a checkpoint every second, heap state; then, with {@code
 *       -Dnexmark.rocksdb=true}, the same with RocksDB state and incremental checkpoints. Bounded
 *       input of N events at no wall-clock limit; event time runs at {@code event-rate} events per
 *       second. Results are digested where they are produced ({@link NexmarkDigest}) and compared
 *       with the digest of the expected results: a mismatch fails the benchmark.
 * </ul>
 *
 * <p>Prints one line per run and a table per state backend: events/s of each engine and their
 * ratio, CPU milliseconds per million events (Duraflow: its TaskManager process; Flink: its JVM),
 * checkpoints completed and their average duration, and when the first and the last result
 * reached the sink after the job's start (for windowed queries, whether windows fire while the
 * input is read or only at its end).
 *
 * <pre>
 *   ./mvnw -q -DskipTests -Pbench,flink -pl duraflow-bench -am package -Dbench.main=io.duraflow.bench.NexmarkBenchmark
 *   (options: -Dnexmark.queries=q5,q7 -Dnexmark.events=3000000 -Dnexmark.event-rate=100000
 *    -Dnexmark.warmup-events=1000000 -Dnexmark.rocksdb=true -Dnexmark.engines=duraflow,flink
 *    -Dnexmark.flink-object-reuse=false
 *    -Dnexmark.flink-jvm-options=-XX:TieredStopAtLevel=1)
 * </pre>
 *
 * <p>Before the measured runs, each engine runs every query once over {@code nexmark.warmup-events}
 * events (1 M by default, 0 for none), checked but not measured, so that both measure compiled code
 * rather than the JIT compiler's warm-up (without it the first queries of a pass are measured cold;
 * 3 M events take a fraction of a second to a few seconds).
 *
 * <p>Both engines run with their defaults: the local cluster's TaskManager with 1 GiB heap and
 * tiered compilation as production TaskManagers have it, Flink's JVM with 2 GiB and tiered compilation.
 * {@code nexmark.flink-jvm-options} adds JVM options to Flink's JVM, for diagnosis only (with
 * {@code -XX:TieredStopAtLevel=1} both engines run C1-compiled code); {@code
 * nexmark.flink-object-reuse} turns Flink's object reuse on (off by default, as in Flink).
 */
public final class NexmarkBenchmark {
    static final int PARALLELISM = 2;
    static final String FLINK_MAIN = "io.duraflow.bench.flink.FlinkNexmark";
    static final List<String> QUERIES = List.of("q0", "q1", "q2", "q3", "q4", "q5", "q7", "q8", "q11");
    static final List<String> WINDOWED = List.of("q5", "q7", "q8", "q11");
    /** The prefix of a warm-up run's figures in Flink's properties. */
    public static final String WARMUP = "warmup-";

    private NexmarkBenchmark() {}

    /**
     * What both engines run: events {@code 0 .. events - 1} with event time at {@code eventRate}
     * events per second; the windows and the gap of NexmarkQueries' defaults.
     */
    public record Settings(long events, long eventRate, long outOfOrdernessMs, Duration window, Duration slide,
            Duration gap) {
        /** The parameters of {@code NexmarkDigestJob} (without the query and the digest directory). */
        public Map<String, String> params() {
            Map<String, String> params = new LinkedHashMap<>();
            params.put("events", Long.toString(events));
            params.put("event-rate", Long.toString(eventRate));
            params.put("out-of-orderness", Long.toString(outOfOrdernessMs));
            params.put("window", Long.toString(window.toMillis()));
            params.put("slide", Long.toString(slide.toMillis()));
            params.put("gap", Long.toString(gap.toMillis()));
            return params;
        }

        /** One command-line argument: {@code events,eventRate,outOfOrdernessMs,windowMs,slideMs,gapMs}. */
        public String argument() {
            return events + "," + eventRate + "," + outOfOrdernessMs + "," + window.toMillis() + ","
                    + slide.toMillis() + "," + gap.toMillis();
        }

        public static Settings parse(String argument) {
            String[] f = argument.split(",");
            return new Settings(Long.parseLong(f[0]), Long.parseLong(f[1]), Long.parseLong(f[2]),
                    Duration.ofMillis(Long.parseLong(f[3])), Duration.ofMillis(Long.parseLong(f[4])),
                    Duration.ofMillis(Long.parseLong(f[5])));
        }
    }

    public static void main(String[] args) throws Exception {
        List<String> queries = List.of(System.getProperty("nexmark.queries", String.join(",", QUERIES)).split(","));
        for (String query : queries) {
            if (!QUERIES.contains(query)) {
                throw new IllegalArgumentException("unknown Nexmark query '" + query + "': choose from " + QUERIES);
            }
        }
        long events = Long.getLong("nexmark.events", 3_000_000L) / PARALLELISM * PARALLELISM;
        Settings settings = new Settings(events, Long.getLong("nexmark.event-rate", 100_000L), 0,
                Duration.ofSeconds(10), Duration.ofSeconds(2), Duration.ofSeconds(10));
        long warmupEvents = Long.getLong("nexmark.warmup-events", 1_000_000L) / PARALLELISM * PARALLELISM;
        Settings warmup = warmupEvents <= 0 ? null : new Settings(warmupEvents, settings.eventRate(),
                settings.outOfOrdernessMs(), settings.window(), settings.slide(), settings.gap());
        boolean rocksDb = Boolean.parseBoolean(System.getProperty("nexmark.rocksdb", "false"));
        List<String> engines = List.of(System.getProperty("nexmark.engines", "duraflow,flink").split(","));
        boolean objectReuse = Boolean.parseBoolean(System.getProperty("nexmark.flink-object-reuse", "false"));
        String flinkJvmOptions = System.getProperty("nexmark.flink-jvm-options", "").trim();
        if (flinkJvmOptions.startsWith("${")) {
            flinkJvmOptions = ""; // an empty Maven property that was not replaced
        }
        System.out.printf(Locale.ROOT, "Nexmark benchmark: %s, %,d events each, event time at %,d events/s (%,d s of"
                        + " it), window %d s, slide %d s, gap %d s; parallelism %d, a checkpoint every 1 s, %s; %s; %d"
                        + " cores, load average %s%n", String.join(",", queries), events, settings.eventRate(),
                events / settings.eventRate(), settings.window().toSeconds(), settings.slide().toSeconds(),
                settings.gap().toSeconds(), PARALLELISM, rocksDb ? "heap, then RocksDB" : "heap state",
                warmup == null ? "no warm-up" : String.format(Locale.ROOT, "each engine first runs every query over"
                        + " %,d events, not measured (warm-up)", warmupEvents),
                Runtime.getRuntime().availableProcessors(), StateBackendBenchmark.loadAverage());
        Map<String, NexmarkDigest.Digest> expected = expected(queries, settings);
        Map<String, NexmarkDigest.Digest> warmupExpected = warmup == null ? Map.of() : expected(queries, warmup);
        boolean flinkBuilt = ClassLoader.getSystemResource(FLINK_MAIN.replace('.', '/') + ".class") != null;
        if (!flinkBuilt) {
            System.out.println("flink: not measured (build with -Pflink to compare with Apache Flink 2.3.0)");
        }
        List<String> wrong = new ArrayList<>();
        List<String> summary = new ArrayList<>();
        for (boolean rocks : rocksDb ? new boolean[] {false, true} : new boolean[] {false}) {
            String backend = rocks ? "rocksdb" : "heap";
            Map<String, NexmarkRun> duraflow = new LinkedHashMap<>();
            Map<String, NexmarkRun> flink = new LinkedHashMap<>();
            if (engines.contains("duraflow")) {
                try (DuraflowNexmarkRuns runs = DuraflowNexmarkRuns.start(PARALLELISM, rocks)) {
                    if (warmup != null) {
                        for (String query : queries) {
                            check("duraflow " + backend + " warm-up", runs.run(query, warmup),
                                    warmupExpected.get(query), wrong);
                        }
                    }
                    for (String query : queries) {
                        NexmarkRun run = runs.run(query, settings);
                        duraflow.put(query, run);
                        print("duraflow " + backend, run, expected.get(query), wrong);
                    }
                }
            }
            if (engines.contains("flink") && flinkBuilt) {
                Properties figures = runFlink(rocks, queries, settings, warmup, objectReuse, flinkJvmOptions);
                if (warmup != null) {
                    for (String query : queries) {
                        check("flink 2.3.0 " + backend + " warm-up", NexmarkRun.from(figures, WARMUP + query),
                                warmupExpected.get(query), wrong);
                    }
                }
                for (String query : queries) {
                    NexmarkRun run = NexmarkRun.from(figures, query);
                    flink.put(query, run);
                    print("flink 2.3.0 " + backend, run, expected.get(query), wrong);
                }
            }
            summary.addAll(NexmarkTable.lines(backend, queries, duraflow, flink, rocks ? 1.5 : 2.0, objectReuse));
        }
        System.out.printf("load average at the end: %s%n", StateBackendBenchmark.loadAverage());
        summary.forEach(System.out::println);
        if (!wrong.isEmpty()) {
            throw new IllegalStateException("benchmark result is wrong: " + String.join("; ", wrong));
        }
    }

    /** The digests of the expected results, computed once up front (the events are held only meanwhile). */
    private static Map<String, NexmarkDigest.Digest> expected(List<String> queries, Settings settings) {
        long start = System.nanoTime();
        NexmarkExpected expected = new NexmarkExpected(NexmarkConfig.defaults()
                .withEventsPerSecond(settings.eventRate()).withMaxOutOfOrdernessMs(settings.outOfOrdernessMs()),
                settings.events());
        Map<String, NexmarkDigest.Digest> digests = new LinkedHashMap<>();
        for (String query : queries) {
            digests.put(query, NexmarkDigest.expected(expected, query, settings.window(), settings.slide(),
                    settings.gap()));
        }
        System.out.printf(Locale.ROOT, "expected results computed directly in %,d ms: %s%n",
                (System.nanoTime() - start) / 1_000_000, digests);
        return digests;
    }

    /** Checks a warm-up run's results, printing one short line. */
    private static void check(String engine, NexmarkRun run, NexmarkDigest.Digest expected, List<String> wrong) {
        if (run == null) {
            wrong.add(engine + ": a query did not report");
            return;
        }
        boolean exact = run.digest().equals(expected);
        System.out.printf(Locale.ROOT, "%s %s: %,d events in %,d ms, results %s%n", engine, run.query(), run.events(),
                run.jobMillis(), exact ? "as expected" : "WRONG, expected " + expected + ", got " + run.digest());
        if (!exact) {
            wrong.add(engine + " " + run.query() + ": " + run.digest() + ", expected " + expected);
        }
    }

    private static void print(String engine, NexmarkRun run, NexmarkDigest.Digest expected, List<String> wrong) {
        if (run == null) {
            wrong.add(engine + ": a query did not report");
            return;
        }
        boolean exact = run.digest().equals(expected);
        System.out.printf(Locale.ROOT, "%s %s: %,d events in %,d ms = %,.0f events/s | CPU %,.0f ms per million"
                        + " events | %d checkpoints (avg %d ms, %d failed) | results %s -> %s%n", engine, run.query(),
                run.events(), run.jobMillis(), run.eventsPerSecond(), run.cpuMillisPerMillionEvents(),
                run.checkpoints(), run.checkpointAvgMillis(), run.checkpointsFailed(), run.digest(),
                exact ? "as expected" : "WRONG, expected " + expected);
        if (!exact) {
            wrong.add(engine + " " + run.query() + ": " + run.digest() + ", expected " + expected);
        }
    }

    /**
     * Runs Flink's side in a JVM of its own, with this JVM's class path less Duraflow's rocksdbjni
     * (Flink's RocksDB brings its own {@code org.rocksdb}); returns its figures.
     */
    private static Properties runFlink(boolean rocksDb, List<String> queries, Settings settings, Settings warmup,
            boolean objectReuse, String jvmOptions) throws Exception {
        Path dir = Files.createTempDirectory("flink-nexmark-");
        try {
            Path out = dir.resolve("figures.properties");
            List<String> classPath = new ArrayList<>();
            for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
                if (!entry.contains("/org/rocksdb/")) {
                    classPath.add(entry);
                }
            }
            List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                    .toString(), "-Xmx2g"));
            if (!jvmOptions.isEmpty()) {
                command.addAll(List.of(jvmOptions.split(" +")));
            }
            command.addAll(List.of("-Dlogback.configurationFile=bench-logback.xml", "-cp",
                    String.join(File.pathSeparator, classPath), FLINK_MAIN, rocksDb ? "rocksdb" : "heap",
                    String.join(",", queries), settings.argument(), warmup == null ? "none" : warmup.argument(),
                    Integer.toString(PARALLELISM),
                    Boolean.toString(objectReuse), dir.toString(), out.toString()));
            System.out.printf("flink 2.3.0 %s: the queries in a JVM of its own (class path without rocksdbjni%s)%n",
                    rocksDb ? "rocksdb" : "heap", jvmOptions.isEmpty() ? "" : ", JVM options " + jvmOptions);
            Process process = new ProcessBuilder(command).inheritIO().start();
            int exit;
            try {
                exit = process.waitFor();
            } finally {
                process.destroyForcibly();
            }
            if (exit != 0) {
                throw new IllegalStateException("Flink's Nexmark runs exited with " + exit + " (see the output above)");
            }
            Properties figures = new Properties();
            try (Reader reader = Files.newBufferedReader(out, StandardCharsets.UTF_8)) {
                figures.load(reader);
            }
            if (rocksDb && !figures.getProperty("rocksdb.classes", "").contains("frocksdbjni")) {
                throw new IllegalStateException("Flink's JVM did not load Flink's RocksDB (frocksdbjni) but "
                        + figures.getProperty("rocksdb.classes"));
            }
            return figures;
        } finally {
            StateBackendBenchmark.deleteRecursively(dir);
        }
    }
}
