package io.duraflow.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** {@link KafkaBenchmark}'s table, in Markdown so that it pastes into docs/performance.md. */
final class KafkaBenchTable {
    /** The goals: Duraflow's throughput at least this times Flink's, and its p99 latency at most Flink's. */
    static final double THROUGHPUT_TARGET = 1.5;

    private KafkaBenchTable() {}

    static List<String> lines(List<KafkaBenchmark.EngineResult> results) {
        List<String> lines = new ArrayList<>();
        lines.add("");
        lines.add("Kafka topic to topic, keyed count, exactly once, parallelism 2, a checkpoint every 1 s,"
                + " heap state:");
        lines.add("| engine | records/s | CPU ms / M records | broker CPU ms / M records | checkpoints (avg ms)"
                + " | latency p50 ms | p99 ms | max ms | CPU ms / M records (latency run) | checkpoints (latency run)"
                + " | exactly once |");
        lines.add("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|");
        for (KafkaBenchmark.EngineResult r : results) {
            lines.add(String.format(Locale.ROOT, "| %s | %,.0f | %s | %,.0f | %s | %.0f | %.0f | %.0f | %s | %s | %s |",
                    r.engine(), r.throughput().recordsPerSecond(r.records()), cpu(r.throughput(), r.records()),
                    r.brokerCpuMillisPerMillion(), checkpoints(r.throughput()), r.latency().p50Millis(), r.latency().p99Millis(),
                    r.latency().maxMillis(), cpu(r.latencyRun(), r.latencyRecords()), checkpoints(r.latencyRun()),
                    r.exact() ? "PASS" : "FAIL"));
        }
        KafkaBenchmark.EngineResult duraflow = find(results, "duraflow");
        KafkaBenchmark.EngineResult flink = find(results, "flink 2.3.0");
        if (duraflow == null || flink == null) {
            lines.add("Duraflow / Flink: not compared (one engine only)");
            return lines;
        }
        double throughput = duraflow.throughput().recordsPerSecond(duraflow.records())
                / flink.throughput().recordsPerSecond(flink.records());
        double cpu = duraflow.throughput().cpuMillisPerMillion(duraflow.records())
                / flink.throughput().cpuMillisPerMillion(flink.records());
        double p50 = duraflow.latency().p50Millis() / flink.latency().p50Millis();
        double p99 = duraflow.latency().p99Millis() / flink.latency().p99Millis();
        lines.add(String.format(Locale.ROOT, "| Duraflow / Flink | %.2fx | %.2fx | %.2fx | | %.2fx | %.2fx | | %.2fx |"
                + " | |", throughput, cpu, duraflow.brokerCpuMillisPerMillion() / flink.brokerCpuMillisPerMillion(),
                p50, p99, duraflow.latencyRun().cpuMillisPerMillion(duraflow.latencyRecords())
                        / flink.latencyRun().cpuMillisPerMillion(flink.latencyRecords())));
        lines.add(String.format(Locale.ROOT, "goals: throughput >= %.1fx Flink's: %s (%.2fx); p99 latency <= Flink's:"
                        + " %s (%.0f ms against %.0f ms)", THROUGHPUT_TARGET, throughput >= THROUGHPUT_TARGET ? "met"
                        : "NOT met", throughput, p99 <= 1 ? "met" : "NOT met", duraflow.latency().p99Millis(),
                flink.latency().p99Millis()));
        return lines;
    }

    private static KafkaBenchmark.EngineResult find(List<KafkaBenchmark.EngineResult> results, String engine) {
        return results.stream().filter(r -> r.engine().equals(engine)).findFirst().orElse(null);
    }

    private static String cpu(KafkaRun run, long records) {
        return run.cpuNanos() < 0 ? "-" : String.format(Locale.ROOT, "%,.0f", run.cpuMillisPerMillion(records));
    }

    private static String checkpoints(KafkaRun run) {
        return run.checkpoints() + (run.checkpoints() > 0 ? " (" + run.checkpointAvgMillis() + ")" : "")
                + (run.checkpointsFailed() > 0 ? ", " + run.checkpointsFailed() + " failed" : "");
    }
}
