package io.duraflow.bench;

import io.duraflow.kafka.local.LocalKafkaBroker;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Kafka topic to topic, Duraflow against Apache Flink 2.3.0 in the same run, on the same broker:
 * the keyed count of {@code KafkaKeyedCount} (read keys, count per key in keyed state, write
 * {@code key:count}) from Kafka's source to Kafka's sink, exactly once, on both engines:
 * parallelism 2, a checkpoint every second, heap state, each engine's own Kafka connector.
 *
 * <ul>
 *   <li>Duraflow: {@code KafkaKeyedCount} on a local cluster ({@link DuraflowKafkaRuns}).
 *   <li>Flink: the same operators with Flink's DataStream API and {@code flink-connector-kafka}
 *       on a MiniCluster in a JVM of its own ({@link FlinkKafkaRuns}, {@code FlinkKafkaKeyedCount}).
 *   <li>The broker: one {@link LocalKafkaBroker} (a KRaft broker in a process of its own) for the
 *       whole run. Input topics of {@code kafka.partitions} partitions, keyed ({@link
 *       KafkaBenchTopics}); each engine writes its own output topics with its own transactional ids.
 * </ul>
 *
 * <p><b>Throughput.</b> The input topic is filled with {@code kafka.records} records over {@code
 * kafka.keys} keys before any job runs; each engine then runs the job bounded (up to the end
 * offsets at its start), and throughput is records / the job's run time. Before it, each engine
 * runs it once over {@code kafka.warmup-records} records of another topic, checked but not
 * measured, so that both measure compiled code; all engines' warm-ups come before the first
 * measured run, so that both meet a broker that has compiled its hot paths too. After each run, the output topic is read with a
 * {@code read_committed} consumer and checked exactly ({@code KafkaKeyedCount.check}): for a key
 * read n times, {@code key:1} .. {@code key:n}, each once. A mismatch fails the benchmark.
 *
 * <p><b>Latency.</b> Each engine then runs the job unbounded on a topic of its own; once its first
 * checkpoint has completed, {@link KafkaLatencyProbe} writes {@code kafka.rate} records/s for
 * {@code kafka.latency-seconds} and measures for every record the time from its send until its
 * count is read by a {@code read_committed} consumer; then checks the output exactly and cancels
 * the job. Both engines make output visible when a checkpoint completes, so the checkpoint interval
 * dominates. The p99 is that of the slowest checkpoints: the records that waited longest are those
 * read just after a barrier, and each checkpoint holds a second's worth of them. A run of 60 s
 * (60 checkpoints) puts its 1 % in several checkpoints; in runs of 20 s it was the one or two
 * slowest, and the comparison went either way by chance.
 *
 * <pre>
 *   ./mvnw -q -DskipTests -Pbench,flink -pl duraflow-bench -am package -Dbench.main=io.duraflow.bench.KafkaBenchmark
 *   (options: -Dkafka.records=3000000 -Dkafka.warmup-records=1000000 -Dkafka.keys=100000
 *    -Dkafka.partitions=4 -Dkafka.rate=20000 -Dkafka.latency-seconds=60 -Dkafka.engines=duraflow,flink
 *    -Dkafka.broker-jvm=test -Dkafka.taskmanager-jvm-options=... -Dkafka.flink-jvm-options=...)
 * </pre>
 *
 * <p>CPU is Duraflow's TaskManager process and Flink's whole JVM (its JobManager included), as in
 * {@link NexmarkBenchmark}; the broker's CPU during each bounded run is printed beside it. The
 * broker runs with the tests' options by default ({@code kafka.broker-jvm=test}: C1 only, the
 * serial collector): on two cores a broker with both compilers and G1 ({@code server}) spends the
 * runs of a few seconds compiling, took CPU from the engines and cost the engine measured first
 * more than the other. The JVM options properties add options to Duraflow's TaskManager or
 * Flink's JVM, for diagnosis only (e.g. a flight recording).
 */
public final class KafkaBenchmark {
    static final int PARALLELISM = 2;
    static final long SEED = 0x4B61666B61L;
    static final String INPUT = "input";
    static final String WARMUP_INPUT = "input-warmup";

    private KafkaBenchmark() {}

    /** What the benchmark runs; from system properties. */
    record Settings(long records, long warmupRecords, int keys, int partitions, long ratePerSecond,
            Duration latencyDuration, List<String> engines, String taskManagerJvmOptions, String flinkJvmOptions,
            List<String> brokerJvmOptions) {
        static Settings fromSystemProperties() {
            String brokerJvm = System.getProperty("kafka.broker-jvm", "test");
            List<String> brokerJvmOptions = switch (brokerJvm) {
                case "server" -> LocalKafkaBroker.SERVER_JVM_OPTIONS;
                case "test" -> LocalKafkaBroker.TEST_JVM_OPTIONS;
                default -> throw new IllegalArgumentException("kafka.broker-jvm is '" + brokerJvm
                        + "': server (both compilers, 1 GiB, G1) or test (C1 only, serial collector)");
            };
            return new Settings(Long.getLong("kafka.records", 3_000_000L), Long.getLong("kafka.warmup-records",
                    1_000_000L), Integer.getInteger("kafka.keys", 100_000), Integer.getInteger("kafka.partitions", 4),
                    Long.getLong("kafka.rate", 20_000L), Duration.ofSeconds(Long.getLong("kafka.latency-seconds", 60)),
                    List.of(System.getProperty("kafka.engines", "duraflow,flink").split(",")),
                    option("kafka.taskmanager-jvm-options"), option("kafka.flink-jvm-options"), brokerJvmOptions);
        }

        private static String option(String property) {
            String value = System.getProperty(property, "").trim();
            return value.startsWith("${") ? "" : value; // an empty Maven property that was not replaced
        }
    }

    /** One engine's figures and checks. */
    record EngineResult(String engine, long records, KafkaRun throughput, long brokerCpuNanos,
            List<String> throughputProblems, long latencyRecords, KafkaRun latencyRun,
            KafkaLatencyProbe.Result latency) {
        /** The broker's CPU milliseconds per million records of the measured bounded run; NaN if unknown. */
        double brokerCpuMillisPerMillion() {
            return brokerCpuNanos < 0 ? Double.NaN : brokerCpuNanos / 1e6 / (records / 1e6);
        }

        boolean exact() {
            return throughputProblems.isEmpty() && latency.problems().isEmpty();
        }
    }

    public static void main(String[] args) throws Exception {
        Settings settings = Settings.fromSystemProperties();
        System.out.printf(Locale.ROOT, "Kafka benchmark: keyed count topic to topic, exactly once; %,d records over"
                        + " %,d keys in %d partitions (warm-up %,d); latency at %,d records/s for %d s; parallelism"
                        + " %d, a checkpoint every 1 s, heap state; %d cores, load average %s%n", settings.records(),
                settings.keys(), settings.partitions(), settings.warmupRecords(), settings.ratePerSecond(),
                settings.latencyDuration().toSeconds(), PARALLELISM, Runtime.getRuntime().availableProcessors(),
                StateBackendBenchmark.loadAverage());
        boolean flinkBuilt = FlinkKafkaRuns.built();
        if (!flinkBuilt) {
            System.out.println("flink: not measured (build with -Pflink to compare with Apache Flink 2.3.0)");
        }
        Path lib = Path.of(System.getProperty("kafka.broker.lib", "../duraflow-kafka-broker/target/lib"));
        Path brokerDir = Files.createTempDirectory(Files.createDirectories(Path.of("target")), "kafka-bench-broker-");
        List<EngineResult> results = new ArrayList<>();
        try (LocalKafkaBroker broker = LocalKafkaBroker.create(lib, brokerDir, Map.of())
                .jvmOptions(settings.brokerJvmOptions())) {
            broker.start();
            String bootstrap = broker.bootstrapServers();
            System.out.printf("broker: %s, in %s%n", bootstrap, brokerDir);
            Map<String, Long> warmupCounts = fill(broker, WARMUP_INPUT, settings.warmupRecords(), settings);
            Map<String, Long> counts = fill(broker, INPUT, settings.records(), settings);
            List<String> engines = settings.engines().stream()
                    .filter(engine -> flinkBuilt || !engine.equals("flink")).toList();
            List<KafkaEngine> opened = new ArrayList<>();
            try {
                for (String engine : engines) {
                    opened.add(open(engine, bootstrap, settings));
                }
                results.addAll(measure(engines, opened, broker, settings, warmupCounts, counts));
            } finally {
                for (KafkaEngine engine : opened) {
                    engine.close();
                }
            }
        }
        System.out.printf("load average at the end: %s%n", StateBackendBenchmark.loadAverage());
        KafkaBenchTable.lines(results).forEach(System.out::println);
        List<String> wrong = new ArrayList<>();
        for (EngineResult result : results) {
            if (!result.exact()) {
                wrong.add(result.engine() + ": " + result.throughputProblems() + " " + result.latency().problems());
            }
        }
        if (!wrong.isEmpty()) {
            throw new IllegalStateException("benchmark result is wrong: " + String.join("; ", wrong));
        }
        StateBackendBenchmark.deleteRecursively(brokerDir);
    }

    private static KafkaEngine open(String engine, String bootstrap, Settings settings) throws Exception {
        return switch (engine) {
            case "duraflow" -> DuraflowKafkaRuns.start(bootstrap, PARALLELISM, settings.taskManagerJvmOptions());
            case "flink" -> FlinkKafkaRuns.start(bootstrap, PARALLELISM, settings.flinkJvmOptions());
            default -> throw new IllegalArgumentException("unknown engine '" + engine + "': duraflow or flink");
        };
    }

    private static Map<String, Long> fill(LocalKafkaBroker broker, String topic, long records, Settings settings) {
        broker.createTopic(topic, settings.partitions());
        long millis = KafkaBenchTopics.fill(broker.bootstrapServers(), topic, SEED, records, settings.keys());
        System.out.printf(Locale.ROOT, "topic %s: %,d records written in %,d ms%n", topic, records, millis);
        return KafkaBenchTopics.counts(SEED, records, settings.keys());
    }

    /**
     * Each phase for every engine before the next phase: all warm-ups, then all measured bounded
     * runs, then all latency runs. The broker compiles its hot paths during the first runs (its CPU
     * per record was 2 to 3 times higher in them), so the engine measured first would pay for it.
     */
    private static List<EngineResult> measure(List<String> ids, List<KafkaEngine> engines, LocalKafkaBroker broker,
            Settings settings, Map<String, Long> warmupCounts, Map<String, Long> counts) throws Exception {
        List<List<String>> problems = new ArrayList<>();
        for (int i = 0; i < engines.size(); i++) {
            problems.add(new ArrayList<>());
            if (settings.warmupRecords() > 0) {
                List<String> found = bounded(ids.get(i), "warm-up", engines.get(i), broker, WARMUP_INPUT, settings,
                        settings.warmupRecords(), warmupCounts).problems();
                found.forEach(problem -> problems.get(problems.size() - 1).add("warm-up: " + problem));
            }
        }
        List<Checked> measured = new ArrayList<>();
        for (int i = 0; i < engines.size(); i++) {
            Checked run = bounded(ids.get(i), "measured", engines.get(i), broker, INPUT, settings, settings.records(),
                    counts);
            problems.get(i).addAll(run.problems());
            measured.add(run);
        }
        List<EngineResult> results = new ArrayList<>();
        for (int i = 0; i < engines.size(); i++) {
            KafkaEngine engine = engines.get(i);
            Latency latency = latency(ids.get(i), engine, broker, settings);
            results.add(new EngineResult(engine.name(), settings.records(), measured.get(i).run(),
                    measured.get(i).brokerCpuNanos(), problems.get(i), latency.result().sent(), latency.run(),
                    latency.result()));
        }
        return results;
    }

    private record Latency(KafkaRun run, KafkaLatencyProbe.Result result) {}

    /** The unbounded job on a topic of its own, fed at {@code kafka.rate} while the probe measures. */
    private static Latency latency(String id, KafkaEngine engine, LocalKafkaBroker broker, Settings settings)
            throws Exception {
        String input = "latency-input-" + id;
        String output = output(id, "latency");
        broker.createTopic(input, settings.partitions());
        broker.createTopic(output, settings.partitions());
        KafkaLatencyProbe probe = new KafkaLatencyProbe(broker.bootstrapServers(), input, output, SEED + 1,
                settings.keys(), settings.ratePerSecond(), settings.latencyDuration());
        engine.start("kafka-latency-" + id, input, output, "kafka-bench-" + id + "-latency");
        KafkaLatencyProbe.Result latency;
        KafkaRun latencyRun;
        try {
            latency = probe.run();
        } finally {
            latencyRun = engine.cancel("kafka-latency-" + id);
        }
        System.out.printf(Locale.ROOT, "%s latency: %,d records at %,d records/s, %,d seen | p50 %.0f ms, p99 %.0f ms,"
                        + " max %.0f ms | CPU %,.0f ms per million records | %d checkpoints (avg %d ms, %d failed) |"
                        + " %s%n", engine.name(), latency.sent(), settings.ratePerSecond(), latency.seen(),
                latency.p50Millis(), latency.p99Millis(), latency.maxMillis(), latencyRun.cpuMillisPerMillion(
                        latency.sent()), latencyRun.checkpoints(), latencyRun.checkpointAvgMillis(),
                latencyRun.checkpointsFailed(), verdict(latency.problems()));
        return new Latency(latencyRun, latency);
    }

    /** A bounded run and its check, printed; returns the run and what its check found. */
    private static Checked bounded(String id, String what, KafkaEngine engine, LocalKafkaBroker broker, String input,
            Settings settings, long records, Map<String, Long> counts) throws Exception {
        String output = output(id, what);
        broker.createTopic(output, settings.partitions());
        Optional<Duration> brokerBefore = broker.cpuTime();
        KafkaRun run = engine.runBounded("kafka-" + id + "-" + what, input, output, "kafka-bench-" + id + "-" + what);
        Optional<Duration> brokerAfter = broker.cpuTime();
        long brokerCpuNanos = brokerBefore.isPresent() && brokerAfter.isPresent()
                ? brokerAfter.get().minus(brokerBefore.get()).toNanos() : -1;
        List<String> problems = KafkaBenchTopics.check(broker.bootstrapServers(), output, counts);
        System.out.printf(Locale.ROOT, "%s %s: %,d records in %,d ms = %,.0f records/s | CPU %,.0f ms per million"
                        + " records, the broker's %,.0f | %d checkpoints (avg %d ms, %d failed) | %s%n", engine.name(),
                what, records, run.jobMillis(), run.recordsPerSecond(records), run.cpuMillisPerMillion(records),
                brokerCpuNanos < 0 ? Double.NaN : brokerCpuNanos / 1e6 / (records / 1e6), run.checkpoints(),
                run.checkpointAvgMillis(), run.checkpointsFailed(), verdict(problems));
        return new Checked(run, brokerCpuNanos, problems);
    }

    /** @param brokerCpuNanos the broker's CPU time during the run (it also checks the run's transactions); -1 if unknown */
    private record Checked(KafkaRun run, long brokerCpuNanos, List<String> problems) {}

    static String output(String id, String what) {
        return "output-" + id + "-" + what;
    }

    private static String verdict(List<String> problems) {
        return problems.isEmpty() ? "output exactly once" : "output WRONG: " + problems;
    }
}
