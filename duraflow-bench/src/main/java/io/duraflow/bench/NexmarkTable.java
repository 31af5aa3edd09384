package io.duraflow.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** {@link NexmarkBenchmark}'s table of one state backend, in Markdown so that it pastes into docs/performance.md. */
final class NexmarkTable {
    private NexmarkTable() {}

    static List<String> lines(String backend, List<String> queries, Map<String, NexmarkRun> duraflow,
            Map<String, NexmarkRun> flink, double target, boolean flinkObjectReuse) {
        List<String> lines = new ArrayList<>();
        lines.add("");
        lines.add("Nexmark, " + backend + " state" + (flinkObjectReuse ? " (Flink with object reuse)" : "") + ":");
        lines.add("| query | Duraflow events/s | Flink events/s | ratio | Duraflow CPU ms / M events"
                + " | Flink CPU ms / M events | checkpoints: Duraflow (avg ms) | Flink (avg ms)"
                + " | first / last result after start, ms: Duraflow | Flink |");
        lines.add("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        int met = 0;
        int compared = 0;
        double logSum = 0;
        List<String> missed = new ArrayList<>();
        for (String query : queries) {
            NexmarkRun d = duraflow.get(query);
            NexmarkRun f = flink.get(query);
            double ratio = d != null && f != null ? d.eventsPerSecond() / f.eventsPerSecond() : Double.NaN;
            if (!Double.isNaN(ratio)) {
                compared++;
                logSum += Math.log(ratio);
                if (ratio >= target) {
                    met++;
                } else {
                    missed.add(String.format(Locale.ROOT, "%s %.2fx", query, ratio));
                }
            }
            lines.add(String.format(Locale.ROOT, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |", query,
                    rate(d), rate(f), Double.isNaN(ratio) ? "-" : String.format(Locale.ROOT, "%.2fx", ratio),
                    cpu(d), cpu(f), checkpoints(d), checkpoints(f), results(d), results(f)));
        }
        if (compared > 0) {
            lines.add(String.format(Locale.ROOT, "throughput target >= %.1fx with %s state: met for %d of %d queries%s;"
                            + " geometric mean of the ratios %.2fx", target, backend, met, compared,
                    missed.isEmpty() ? "" : " (not met: " + String.join(", ", missed) + ")",
                    Math.exp(logSum / compared)));
        } else {
            lines.add("throughput target >= " + target + "x with " + backend + " state: not compared (one engine only)");
        }
        return lines;
    }

    private static String rate(NexmarkRun run) {
        return run == null ? "-" : String.format(Locale.ROOT, "%,.0f", run.eventsPerSecond());
    }

    private static String cpu(NexmarkRun run) {
        return run == null || run.cpuNanos() < 0 ? "-" : String.format(Locale.ROOT, "%,.0f",
                run.cpuMillisPerMillionEvents());
    }

    private static String checkpoints(NexmarkRun run) {
        return run == null ? "-" : run.checkpoints() + (run.checkpoints() > 0 ? " (" + run.checkpointAvgMillis() + ")"
                : "") + (run.checkpointsFailed() > 0 ? ", " + run.checkpointsFailed() + " failed" : "");
    }

    private static String results(NexmarkRun run) {
        return run == null || run.firstResultMillis() < 0 ? "-" : String.format(Locale.ROOT, "%,d / %,d",
                run.firstResultMillis(), run.lastResultMillis());
    }
}
