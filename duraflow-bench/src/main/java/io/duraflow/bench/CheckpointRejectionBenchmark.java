package io.duraflow.bench;

import io.duraflow.cli.ClusterClient;
import io.duraflow.cli.LocalCluster;
import io.duraflow.cli.demo.CheckpointRejectionDemo;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Checkpoint rejection with the checkpoint-rejection demo's source: the soft-decline retry, and the
 * throughput cost of declining. See docs/design/benchmarks.md#checkpointrejectionbenchmark.
 */
public final class CheckpointRejectionBenchmark {
    private static final Map<String, String> RETRY_PARAMS = Map.of("rows", "100000", "changes", "4000",
            "chunk-rows", "500", "rate", "4000");
    /** Chunks of 10,000 rows span about ten polls, so triggers find them open. */
    private static final Map<String, String> THROUGHPUT_PARAMS = Map.of("rows", "10000000", "changes", "2000000",
            "chunk-rows", "10000", "rate", "0");
    private static final String RETRY_OPTION = "execution.checkpointing.soft-decline-retry-delay";

    private CheckpointRejectionBenchmark() {}

    public static void main(String[] args) throws Exception {
        int pairs = Integer.getInteger("bench.pairs", 3);
        PrintStream report = Boolean.getBoolean("bench.verbose") ? System.out
                : new PrintStream(OutputStream.nullOutputStream());
        Path workDir = Files.createTempDirectory("duraflow-rejection-");
        Map<String, String> settings = CheckpointRejectionDemo.clusterSettings(workDir, 2);
        LocalCluster cluster = new LocalCluster(workDir, settings, line -> {});
        System.out.printf("Checkpoint rejection benchmark: 1 JobManager, 2 TaskManagers, parallelism 2, a checkpoint"
                + " every %s (work directory %s)%n", settings.get("execution.checkpointing.interval"), workDir);
        try {
            String address = cluster.start(2, 1, 0, Duration.ofSeconds(60));
            try (ClusterClient client = new ClusterClient(address)) {
                System.out.println();
                System.out.println("1. From the source becoming available to a completed checkpoint (" + RETRY_PARAMS
                        + ")");
                System.out.printf("   %-44s %9s %9s %9s %9s %9s %14s %9s%n", "", "triggered", "soft", "hard",
                        "other", "completed", "median (n)", "max");
                retryRow(cluster, client, workDir, settings, "retry after 200 ms (the default)", "200ms", report);
                retryRow(cluster, client, workDir, settings, "no retry (soft-decline-retry-delay 0)", "0ms", report);

                System.out.println();
                System.out.println("2. Throughput, rejection on vs a source that never declines (" + THROUGHPUT_PARAMS
                        + ")");
                throughput(cluster, client, workDir, settings, true, report);  // warm-up
                throughput(cluster, client, workDir, settings, false, report);
                List<Double> on = new ArrayList<>();
                List<Double> off = new ArrayList<>();
                for (int pair = 0; pair < pairs; pair++) {
                    boolean onFirst = pair % 2 == 0;
                    double first = throughput(cluster, client, workDir, settings, onFirst, report);
                    double second = throughput(cluster, client, workDir, settings, !onFirst, report);
                    (onFirst ? on : off).add(first);
                    (onFirst ? off : on).add(second);
                    System.out.printf("   pair %d: rejection on %,.0f records/s, never declines %,.0f records/s%n",
                            pair + 1, on.get(pair), off.get(pair));
                }
                double medianOn = median(on);
                double medianOff = median(off);
                System.out.printf("   median of %d: rejection on %,.0f records/s, never declines %,.0f records/s:"
                        + " overhead %+.1f %% (target < 2 %%)%n", pairs, medianOn, medianOff,
                        100 * (medianOff - medianOn) / medianOff);
            }
        } finally {
            cluster.stop();
        }
    }

    private static void retryRow(LocalCluster cluster, ClusterClient client, Path workDir, Map<String, String> settings,
            String label, String retryDelay, PrintStream report) throws Exception {
        Map<String, String> job = new LinkedHashMap<>(settings);
        job.put(RETRY_OPTION, retryDelay);
        CheckpointRejectionDemo.Figures f = new CheckpointRejectionDemo(workDir, Map.of(), RETRY_PARAMS, 2, false,
                report).runOn(cluster, client, job);
        check(f);
        System.out.printf("   %-44s %9d %9d %9d %9d %9d %14s %9s%n", label, f.triggered(), f.declinedSoft(),
                f.declinedHard(), f.failedOtherwise(), f.completed(), f.medianAvailableToCompletedMs() + " ms ("
                + f.availableToCompletedMs().size() + ")", f.maxAvailableToCompletedMs() + " ms");
    }

    private static double throughput(LocalCluster cluster, ClusterClient client, Path workDir,
            Map<String, String> settings, boolean rejecting, PrintStream report) throws Exception {
        Map<String, String> params = new LinkedHashMap<>(THROUGHPUT_PARAMS);
        params.put("reject", Boolean.toString(rejecting));
        CheckpointRejectionDemo.Figures f = new CheckpointRejectionDemo(workDir, Map.of(), params, 2, false, report)
                .runOn(cluster, client, settings);
        check(f);
        deleteOutputs(workDir);
        if (report != System.out) {
            System.out.printf("     %-16s %,.0f records/s (%,d ms; checkpoints %d completed, %d declined soft)%n",
                    rejecting ? "rejection on:" : "never declines:", f.recordsPerSecond(), f.runningMs(),
                    f.completed(), f.declinedSoft());
        }
        return f.recordsPerSecond();
    }

    /** The runs' output directories, checked already: 70 MB per throughput run. */
    private static void deleteOutputs(Path workDir) throws java.io.IOException {
        Path outputs = workDir.resolve("output");
        if (!Files.exists(outputs)) {
            return;
        }
        try (var paths = Files.walk(outputs)) {
            for (Path path : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }

    private static void check(CheckpointRejectionDemo.Figures f) {
        if (!f.passed()) {
            throw new IllegalStateException("a run did not finish with exact output: " + f.endState() + " "
                    + f.failure() + " " + f.problems());
        }
    }

    private static double median(List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        return sorted.get(sorted.size() / 2);
    }
}
