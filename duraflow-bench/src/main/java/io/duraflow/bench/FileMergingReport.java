package io.duraflow.bench;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The tables and targets of {@link FileMergingBenchmark}: one row per engine, file system and
 * mode, over its rounds (files per checkpoint: all checkpoints of all rounds; space: the largest
 * at any checkpoint; durations: median of the rounds' medians, largest max; records/s: median of
 * the rounds), then the targets for Duraflow with Flink's figures beside them.
 */
final class FileMergingReport {
    static final double WITHIN_FILES_TARGET = 5;
    static final double ACROSS_FILES_TARGET = 2;
    static final double SPACE_TARGET = 2.0;
    static final double THROUGHPUT_COST_TARGET = 0.03;

    private FileMergingReport() {
    }

    /** The figures of one engine, file system and mode over its rounds. */
    record Row(String engine, String fileSystem, String mode, int rounds, int checkpoints, double meanFiles,
            int medianFiles, int maxFiles, int medianChk, int medianShared, int medianTaskOwned, double medianSpace,
            double maxSpace, double maxHighestSpace, double maxHighestSpaceAll, long durationMedian, long durationMax, double recordsPerSecond,
            double cpuNanosPerRecord, double createFileOpsMean, double createFileOpsMax, double filesCreatedMean,
            double filesCreatedMax, boolean exact, String composition, int checkpointsMissingFiles) {}

    static Row aggregate(List<FileMergingRun> runs) {
        FileMergingRun first = runs.get(0);
        int checkpoints = 0;
        int totalFiles = 0;
        int maxFiles = 0;
        double maxSpace = Double.NaN;
        double maxHighest = Double.NaN;
        double maxHighestAll = Double.NaN;
        long durationMax = 0;
        boolean exact = true;
        List<Long> medianFiles = new ArrayList<>();
        List<Long> chk = new ArrayList<>();
        List<Long> shared = new ArrayList<>();
        List<Long> taskOwned = new ArrayList<>();
        List<Long> durations = new ArrayList<>();
        List<Double> spaces = new ArrayList<>();
        List<Double> rates = new ArrayList<>();
        List<Double> cpu = new ArrayList<>();
        double createMean = 0;
        double createMax = Double.NaN;
        double filesCreatedMean = 0;
        double filesCreatedMax = Double.NaN;
        int missing = 0;
        for (FileMergingRun run : runs) {
            missing += run.space().checkpointsMissingFiles();
            checkpoints += run.files().checkpoints();
            totalFiles += run.files().totalFiles();
            maxFiles = Math.max(maxFiles, run.files().maxFiles());
            medianFiles.add((long) run.files().medianFiles());
            chk.add((long) run.files().medianCheckpointDirFiles());
            shared.add((long) run.files().medianSharedFiles());
            taskOwned.add((long) run.files().medianTaskOwnedFiles());
            durations.add(run.checkpointMedianMillis());
            durationMax = Math.max(durationMax, run.checkpointMaxMillis());
            rates.add(run.recordsPerSecond());
            cpu.add(run.cpuNanosPerRecord());
            exact &= run.exact();
            if (run.space().checkpoints() > 0) {
                spaces.add(run.space().medianAmplification());
                maxSpace = Double.isNaN(maxSpace) ? run.space().maxAmplification()
                        : Math.max(maxSpace, run.space().maxAmplification());
                maxHighest = max(maxHighest, run.space().maxHighestAmplification());
                maxHighestAll = max(maxHighestAll, run.space().maxHighestAmplificationAll());
            }
            Map<String, Double> nn = run.nameNode();
            createMean += nn.getOrDefault("CreateFileOps.mean", Double.NaN) / runs.size();
            filesCreatedMean += nn.getOrDefault("FilesCreated.mean", Double.NaN) / runs.size();
            createMax = max(createMax, nn.getOrDefault("CreateFileOps.max", Double.NaN));
            filesCreatedMax = max(filesCreatedMax, nn.getOrDefault("FilesCreated.max", Double.NaN));
        }
        return new Row(first.engine(), first.fileSystem(), first.mode(), runs.size(), checkpoints,
                checkpoints == 0 ? Double.NaN : (double) totalFiles / checkpoints, (int) CheckpointFileCensus.median(medianFiles),
                maxFiles, (int) CheckpointFileCensus.median(chk), (int) CheckpointFileCensus.median(shared),
                (int) CheckpointFileCensus.median(taskOwned), medianOf(spaces), maxSpace, maxHighest, maxHighestAll,
                CheckpointFileCensus.median(durations), durationMax, medianOf(rates), medianOf(cpu), createMean,
                createMax, filesCreatedMean, filesCreatedMax, exact, runs.get(runs.size() - 1).composition(), missing);
    }

    static void print(List<FileMergingRun> runs, List<String> modes, PrintStream out) {
        Map<String, List<FileMergingRun>> grouped = new LinkedHashMap<>();
        for (String fileSystem : List.of("local", "hdfs")) {
            for (String engine : List.of(FileMergingBenchmark.DURAFLOW, "flink 2.3.0")) {
                for (String mode : modes) {
                    for (FileMergingRun run : runs) {
                        if (run.engine().equals(engine) && run.fileSystem().equals(fileSystem) && run.mode().equals(mode)) {
                            grouped.computeIfAbsent(fileSystem + "|" + engine + "|" + mode, k -> new ArrayList<>()).add(run);
                        }
                    }
                }
            }
        }
        Map<String, Row> rows = new LinkedHashMap<>();
        grouped.forEach((key, list) -> rows.put(key, aggregate(list)));

        out.println();
        out.println("Checkpoint file merging, local file system (p=" + FileMergingBenchmark.PARALLELISM
                + ", one TaskManager, RocksDB incremental, 1 s checkpoints, nothing inlined):");
        out.println("| engine, merging | files per checkpoint: mean / median / max | median's files: chk-<n>/ +"
                + " shared/ + taskowned/ | bytes on disk / live at completed checkpoints: median / max (highest"
                + " between completions; with the next checkpoint's uploads) | checkpoint duration median / max |"
                + " records/s (vs off) | CPU per record | exact |");
        out.println("|---|---|---|---|---|---|---|---|");
        for (Row row : rows.values()) {
            if (!row.fileSystem().equals("local")) {
                continue;
            }
            Row off = rows.get("local|" + row.engine() + "|off");
            out.printf(Locale.ROOT, "| %s, %s | %.1f / %d / %d | %d + %d + %d | %.2f / %.2f (%.2f; %.2f) | %,d / %,d ms |"
                            + " %,.0f%s | %s | %s |%n", row.engine(), row.mode(), row.meanFiles(), row.medianFiles(),
                    row.maxFiles(), row.medianChk(), row.medianShared(), row.medianTaskOwned(), row.medianSpace(),
                    row.maxSpace(), row.maxHighestSpace(), row.maxHighestSpaceAll(), row.durationMedian(), row.durationMax(),
                    row.recordsPerSecond(), off == null || off == row ? ""
                            : String.format(Locale.ROOT, " (%+.1f %%)", 100 * (row.recordsPerSecond()
                            / off.recordsPerSecond() - 1)), Double.isNaN(row.cpuNanosPerRecord()) ? "-"
                            : String.format(Locale.ROOT, "%,.0f ns", row.cpuNanosPerRecord()),
                    row.exact() ? "exact" : "NOT EXACT");
        }
        for (Row row : rows.values()) {
            if (row.checkpointsMissingFiles() > 0) {
                out.printf("  %s %s, %s: a file the latest checkpoint refers to was missing at %d checkpoint(s)%n",
                        row.engine(), row.fileSystem(), row.mode(), row.checkpointsMissingFiles());
            }
        }
        out.println("What the files of the median checkpoint are (by directory, run of the last round):");
        for (Row row : rows.values()) {
            if (row.fileSystem().equals("local")) {
                out.printf("  %s, %s: %s%n", row.engine(), row.mode(), row.composition());
            }
        }
        boolean hdfs = rows.keySet().stream().anyMatch(key -> key.startsWith("hdfs|"));
        if (hdfs) {
            out.println();
            out.println("On HDFS (in-process NameNode and DataNode, the checkpoint directory hdfs://127.0.0.1:<port>/...):");
            out.println("| engine, merging | files per checkpoint (listing): mean / max | NameNode CreateFileOps per"
                    + " checkpoint: mean / max | NameNode FilesCreated (files + directories): mean / max | checkpoint"
                    + " duration median / max | records/s | exact |");
            out.println("|---|---|---|---|---|---|---|");
            for (Row row : rows.values()) {
                if (row.fileSystem().equals("hdfs")) {
                    out.printf(Locale.ROOT, "| %s, %s | %.1f / %d | %.1f / %.0f | %.1f / %.0f | %,d / %,d ms | %,.0f | %s |%n",
                            row.engine(), row.mode(), row.meanFiles(), row.maxFiles(), row.createFileOpsMean(),
                            row.createFileOpsMax(), row.filesCreatedMean(), row.filesCreatedMax(), row.durationMedian(),
                            row.durationMax(), row.recordsPerSecond(), row.exact() ? "exact" : "NOT EXACT");
                }
            }
            for (Row row : rows.values()) {
                if (row.fileSystem().equals("hdfs")) {
                    out.printf("  %s on HDFS, %s: %s%n", row.engine(), row.mode(), row.composition());
                }
            }
        }
        targets(rows, out);
    }

    private static void targets(Map<String, Row> rows, PrintStream out) {
        Row off = rows.get("local|duraflow|off");
        Row within = rows.get("local|duraflow|within");
        Row across = rows.get("local|duraflow|across");
        Row flinkWithin = rows.get("local|flink 2.3.0|within");
        Row flinkAcross = rows.get("local|flink 2.3.0|across");
        out.println();
        out.println("Targets, Duraflow on the local file system (Flink 2.3.0 in the same run in brackets):");
        if (within != null) {
            target(out, "within: files per checkpoint <= 5 (mean; max)", String.format(Locale.ROOT, "%.1f; %d [%s]",
                    within.meanFiles(), within.maxFiles(), flinkWithin == null ? "-" : String.format(Locale.ROOT,
                            "%.1f; %d", flinkWithin.meanFiles(), flinkWithin.maxFiles())),
                    within.meanFiles() <= WITHIN_FILES_TARGET);
        }
        if (across != null) {
            target(out, "across: files per checkpoint <= 2 (mean; max)", String.format(Locale.ROOT, "%.1f; %d [%s]",
                    across.meanFiles(), across.maxFiles(), flinkAcross == null ? "-" : String.format(Locale.ROOT,
                            "%.1f; %d", flinkAcross.meanFiles(), flinkAcross.maxFiles())),
                    across.meanFiles() <= ACROSS_FILES_TARGET);
            target(out, "across: bytes on disk / live <= 2.0 at every completed checkpoint (max)",
                    String.format(Locale.ROOT, "%.2f [%s]", across.maxSpace(), flinkAcross == null ? "-"
                            : String.format(Locale.ROOT, "%.2f", flinkAcross.maxSpace())),
                    across.maxSpace() <= SPACE_TARGET);
        }
        for (Row row : new Row[] {within, across}) {
            if (row == null || off == null) {
                continue;
            }
            Row flink = rows.get("local|flink 2.3.0|" + row.mode());
            Row flinkOff = rows.get("local|flink 2.3.0|off");
            target(out, row.mode() + ": checkpoint duration no worse than off (median)", String.format(Locale.ROOT,
                    "%,d vs %,d ms = %.2f [%s]", row.durationMedian(), off.durationMedian(),
                    (double) row.durationMedian() / off.durationMedian(), flink == null || flinkOff == null ? "-"
                            : String.format(Locale.ROOT, "%.2f", (double) flink.durationMedian() / flinkOff.durationMedian())),
                    row.durationMedian() <= off.durationMedian());
            double cost = 1 - row.recordsPerSecond() / off.recordsPerSecond();
            target(out, row.mode() + ": throughput cost < 3 % (records/s vs off)", String.format(Locale.ROOT,
                    "%+.1f %% [%s]", 100 * cost, flink == null || flinkOff == null ? "-" : String.format(Locale.ROOT,
                            "%+.1f %%", 100 * (1 - flink.recordsPerSecond() / flinkOff.recordsPerSecond()))),
                    cost < THROUGHPUT_COST_TARGET);
        }
    }

    private static void target(PrintStream out, String what, String figures, boolean met) {
        out.printf("  %-72s %s: %s%n", what, figures, met ? "met" : "NOT met");
    }

    private static double medianOf(List<Double> values) {
        List<Double> sorted = new ArrayList<>();
        for (Double v : values) {
            if (!Double.isNaN(v)) {
                sorted.add(v);
            }
        }
        if (sorted.isEmpty()) {
            return Double.NaN;
        }
        java.util.Collections.sort(sorted);
        return sorted.get(sorted.size() / 2);
    }

    private static double max(double a, double b) {
        return Double.isNaN(a) ? b : Double.isNaN(b) ? a : Math.max(a, b);
    }
}
