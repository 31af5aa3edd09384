package io.duraflow.bench;

import io.duraflow.rpc.proto.CheckpointSummary;
import java.io.File;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The benchmark of RocksDB state with incremental checkpoints, and of savepoint restore, side by
 * side with Apache Flink 2.3 (built with the {@code flink} profile). See
 * docs/design/benchmarks.md#statebackendbenchmark.
 */
public final class StateBackendBenchmark {
    static final int PARALLELISM = 2;
    static final String FLINK_MAIN = "io.duraflow.bench.flink.FlinkRocksDbRuns";

    /** Duraflow's state configuration of the keyed-sum part. */
    static final Map<String, String> DURAFLOW_ROCKSDB = Map.of(
            "state.backend.type", "rocksdb",
            "state.backend.incremental", "true",
            "state.storage.inline-threshold", "0");

    private StateBackendBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        long records = Long.getLong("bench.state-records", 3_000_000L);
        long keys = Long.getLong("bench.state-keys", 100_000L);
        long savepointMb = Long.getLong("bench.savepoint-mb", 1024);
        int valueBytes = Integer.getInteger("bench.value-bytes", LargeStateRecords.DEFAULT_VALUE_BYTES);
        Set<String> parts = Set.of(System.getProperty("bench.state-parts", "keyed-sum,savepoint").split(","));
        Set<String> engines = Set.of(System.getProperty("bench.state-engines", "flink,duraflow").split(","));
        System.out.printf(Locale.ROOT, "State backend benchmark: parts %s; keyed sum %,d records, %,d keys;"
                        + " savepoint %,d MiB of state (%,d keys x %,d bytes); parallelism %d, %d cores, load average"
                        + " %s%n", String.join(",", new java.util.TreeSet<>(parts)), records, keys, savepointMb,
                LargeStateRecords.keysFor(savepointMb << 20, valueBytes), valueBytes, PARALLELISM,
                Runtime.getRuntime().availableProcessors(), loadAverage());
        Path workDir = Files.createTempDirectory("state-backend-bench-");
        List<String> wrong = new ArrayList<>();
        Properties flinkSum = null;
        Properties flinkSavepoint = null;
        Side duraflow = new Side();
        try {
            if (engines.contains("flink")) {
                if (ClassLoader.getSystemResource(FLINK_MAIN.replace('.', '/') + ".class") == null) {
                    System.out.println("flink: not measured (build with -Pflink to compare with Apache Flink 2.3.0)");
                } else {
                    if (parts.contains("keyed-sum")) {
                        flinkSum = runFlink("keyed-sum", records, keys, workDir.resolve("flink-keyed-sum"));
                        check(flinkSum, "flink 2.3.0 keyed sum", wrong);
                    }
                    if (parts.contains("savepoint")) {
                        flinkSavepoint = runFlink("savepoint", savepointMb << 20, valueBytes,
                                workDir.resolve("flink-savepoint"));
                        check(flinkSavepoint, "flink 2.3.0 savepoint restore", wrong);
                    }
                    System.out.printf("load average after Flink's runs: %s%n", loadAverage());
                }
            }
            if (engines.contains("duraflow")) {
                if (parts.contains("keyed-sum")) {
                    duraflowKeyedSum(records, keys, duraflow, wrong);
                }
                if (parts.contains("savepoint")) {
                    duraflow.savepoint = DuraflowLargeStateRuns.run(savepointMb << 20, valueBytes, PARALLELISM,
                            workDir.resolve("duraflow-savepoint"), wrong);
                }
                System.out.printf("load average after Duraflow's runs: %s%n", loadAverage());
            }
            compare(duraflow, flinkSum, flinkSavepoint, parts);
        } finally {
            deleteRecursively(workDir);
        }
        if (!wrong.isEmpty()) {
            throw new IllegalStateException("benchmark result is wrong: " + String.join("; ", wrong));
        }
    }

    /** Duraflow's figures, null where not measured. */
    static final class Side {
        DuraflowStreamingRuns.Run keyedSum;
        CheckpointFileCensus.Summary files;
        String notMeasured;
        DuraflowLargeStateRuns.Result savepoint;
    }

    private static void duraflowKeyedSum(long records, long keys, Side side, List<String> wrong) throws Exception {
        System.out.printf("duraflow: keyed sum with %s, on a local cluster (1 JobManager, 2 TaskManagers)%n",
                new java.util.TreeMap<>(DURAFLOW_ROCKSDB));
        try (DuraflowStreamingRuns runs = DuraflowStreamingRuns.start(PARALLELISM, DURAFLOW_ROCKSDB)) {
            DuraflowStreamingRuns.Run run;
            try (CheckpointFileCensus census = CheckpointFileCensus.start(runs.checkpointDir())) {
                try {
                    run = runs.run(records, keys, false);
                } catch (RuntimeException e) {
                    side.notMeasured = "the job was refused or failed: " + firstLine(e);
                    System.out.println("duraflow keyed sum: NOT measured: " + side.notMeasured);
                    return;
                }
                census.close();
                side.files = census.summary();
            }
            side.keyedSum = run;
            run.lines().forEach(line -> System.out.println("duraflow " + line));
            System.out.println("duraflow " + filesLine(side.files));
            System.out.println("duraflow " + registryLine(run.completedCheckpoints()));
            String rocksdb = taskManagerRocksDb(runs.workDir());
            System.out.println("duraflow TaskManagers' org.rocksdb: " + rocksdb);
            if (rocksdb.contains("frocksdbjni") || rocksdb.contains("/org/apache/flink/")) {
                wrong.add("Duraflow's TaskManagers have Flink's RocksDB on their class path: " + rocksdb);
            }
            if (!run.exact()) {
                wrong.add("duraflow keyed sum: " + run.problems());
            }
        }
    }

    /**
     * Bytes written and files per checkpoint as the JobMaster reports them ({@code CheckpointSummary}:
     * checkpointed size = what the checkpoint wrote, files uploaded, shared files reused).
     */
    private static String registryLine(List<CheckpointSummary> completed) {
        return String.format(Locale.ROOT, "checkpoints as the JobMaster reports them: written %,.2f MB (median"
                        + " checkpointed size, full state %,.2f MB), files uploaded median %d (max %d), shared files"
                        + " reused median %d", medianWrittenBytes(completed) / 1e6,
                CheckpointFileCensus.median(figure(completed, CheckpointSummary::getStateSizeBytes)) / 1e6,
                CheckpointFileCensus.median(figure(completed, CheckpointSummary::getFilesUploaded)),
                figure(completed, CheckpointSummary::getFilesUploaded).stream().max(Comparator.naturalOrder()).orElse(0L),
                CheckpointFileCensus.median(figure(completed, CheckpointSummary::getFilesReused)));
    }

    static long medianWrittenBytes(List<CheckpointSummary> completed) {
        return CheckpointFileCensus.median(figure(completed, CheckpointSummary::getCheckpointedSizeBytes));
    }

    private static List<Long> figure(List<CheckpointSummary> completed,
            java.util.function.ToLongFunction<CheckpointSummary> figure) {
        List<Long> values = new ArrayList<>();
        for (CheckpointSummary c : completed) {
            values.add(figure.applyAsLong(c));
        }
        return values;
    }

    /** The census line, the same words for both engines. */
    public static String filesLine(CheckpointFileCensus.Summary files) {
        return String.format(Locale.ROOT, "files per checkpoint (directory scan, %d checkpoints): median %d (%d in"
                        + " shared/), max %d, %d in all | bytes written per checkpoint median %,.2f MB, max %,.2f MB",
                files.checkpoints(), files.medianFiles(), files.medianSharedFiles(), files.maxFiles(),
                files.totalFiles(), files.medianBytes() / 1e6, files.maxBytes() / 1e6);
    }

    /** Runs a part of Flink's side in a JVM of its own (see the class comment) and returns its figures. */
    private static Properties runFlink(String mode, long first, long second, Path dir) throws Exception {
        Files.createDirectories(dir);
        Path out = dir.resolve("figures.properties");
        List<String> classPath = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (!entry.contains("/org/rocksdb/")) {
                classPath.add(entry);
            }
        }
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx2g", "-Dlogback.configurationFile=bench-logback.xml", "-cp", String.join(File.pathSeparator,
                        classPath), FLINK_MAIN, mode, Long.toString(first), Long.toString(second),
                Integer.toString(PARALLELISM), dir.toString(), out.toString()));
        System.out.printf("flink 2.3.0: %s in a JVM of its own (class path without rocksdbjni)%n", mode);
        Process process = new ProcessBuilder(command).inheritIO().start();
        int exit;
        try {
            exit = process.waitFor();
        } finally {
            process.destroyForcibly();
        }
        if (exit != 0) {
            throw new IllegalStateException("Flink's " + mode + " run exited with " + exit + " (see its output above)");
        }
        Properties figures = new Properties();
        try (Reader reader = Files.newBufferedReader(out, StandardCharsets.UTF_8)) {
            figures.load(reader);
        }
        String classes = figures.getProperty("rocksdb.classes", "");
        System.out.printf("flink 2.3.0 org.rocksdb: %s (RocksDB %s)%n", classes, figures.getProperty("rocksdb.version"));
        if (!classes.contains("frocksdbjni")) {
            throw new IllegalStateException("Flink's JVM did not load Flink's RocksDB (frocksdbjni) but " + classes);
        }
        return figures;
    }

    private static void check(Properties figures, String what, List<String> wrong) {
        if (!Boolean.parseBoolean(figures.getProperty("exact"))) {
            wrong.add(what + " not exact " + figures.getProperty("problems", ""));
        }
    }

    private static void compare(Side duraflow, Properties flinkSum, Properties flinkSavepoint, Set<String> parts) {
        System.out.println("duraflow vs flink 2.3.0 (RocksDB, incremental checkpoints):");
        if (!parts.contains("keyed-sum")) {
            System.out.println("  keyed sum: not run (bench.state-parts)");
        } else if (duraflow.keyedSum == null || flinkSum == null) {
            System.out.println("  keyed sum: not compared ("
                    + (duraflow.keyedSum == null ? "Duraflow " + (duraflow.notMeasured == null ? "not run"
                    : "not measured: " + duraflow.notMeasured) : "Flink not run") + ")");
        } else {
            DuraflowStreamingRuns.Run d = duraflow.keyedSum;
            double flinkRate = Double.parseDouble(flinkSum.getProperty("records.per.second"));
            row("throughput", d.recordsPerSecond(), flinkRate, "records/s", "target >= 1.5x",
                    d.recordsPerSecond() / flinkRate >= 1.5);
            row("checkpoint median", d.checkpointMedianMillis(), number(flinkSum, "checkpoint.median.millis"), "ms",
                    "Flink quiet 220 ms", null);
            row("checkpoint max", d.checkpointMaxMillis(), number(flinkSum, "checkpoint.max.millis"), "ms", "", null);
            row("files per checkpoint (median)", duraflow.files.medianFiles(), number(flinkSum, "files.median"), "files",
                    "the file-merging baseline", null);
            row("files uploaded (engines' statistics)", CheckpointFileCensus.median(figure(d.completedCheckpoints(),
                    CheckpointSummary::getFilesUploaded)), Double.NaN, "files", "Flink reports no file count", null);
            row("bytes per checkpoint (median, scan)", duraflow.files.medianBytes() / 1e6,
                    number(flinkSum, "files.median.bytes") / 1e6, "MB", "Flink 1.5-3.5 MB", null);
            row("bytes written (engines' statistics)", medianWrittenBytes(d.completedCheckpoints()) / 1e6,
                    number(flinkSum, "checkpoint.median.written.bytes") / 1e6, "MB", "median checkpointed size", null);
        }
        if (!parts.contains("savepoint")) {
            System.out.println("  savepoint restore: not run (bench.state-parts)");
        } else if (duraflow.savepoint == null || flinkSavepoint == null) {
            System.out.println("  savepoint restore: not compared ("
                    + (duraflow.savepoint == null ? "Duraflow not measured" : "Flink not run") + ")");
        } else {
            double flinkRestore = number(flinkSavepoint, "restore.millis");
            row("savepoint restore", duraflow.savepoint.restoreMillis(), flinkRestore, "ms", "target < 1",
                    duraflow.savepoint.restoreMillis() < flinkRestore);
            row("savepoint size", duraflow.savepoint.savepointBytes() / 1e6,
                    number(flinkSavepoint, "savepoint.bytes") / 1e6, "MB", "", null);
            row("savepoint duration", duraflow.savepoint.savepointMillis(), number(flinkSavepoint, "savepoint.millis"),
                    "ms", "", null);
            row("state build (every key written once)", duraflow.savepoint.buildMillis(),
                    number(flinkSavepoint, "build.millis"), "ms", "", null);
        }
    }

    private static void row(String what, double duraflow, double flink, String unit, String target, Boolean met) {
        System.out.printf(Locale.ROOT, "  %-36s %,14.2f vs %,14.2f %-9s = %5.2f  %s%s%n", what, duraflow, flink, unit,
                duraflow / flink, target, met == null ? "" : (met ? ": met" : ": NOT met"));
    }

    private static double number(Properties figures, String key) {
        return Double.parseDouble(figures.getProperty(key, "NaN"));
    }

    /**
     * Which {@code org.rocksdb} the TaskManagers have: the RocksDB jars on their class path ({@code
     * /proc/<pid>/cmdline}) and the RocksDB native libraries they mapped ({@code /proc/<pid>/maps}).
     */
    static String taskManagerRocksDb(Path clusterWorkDir) throws IOException {
        Set<String> jars = new LinkedHashSet<>();
        Set<String> natives = new LinkedHashSet<>();
        List<String> pids = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(clusterWorkDir.resolve("pids"), "taskmanager-*.pid")) {
            for (Path file : files) {
                String pid = Files.readString(file).trim();
                pids.add(pid);
                String[] args = Files.readString(Path.of("/proc", pid, "cmdline")).split("\0");
                for (int i = 0; i + 1 < args.length; i++) {
                    if (args[i].equals("-cp") || args[i].equals("-classpath")) {
                        for (String entry : args[i + 1].split(File.pathSeparator)) {
                            if (entry.contains("rocksdb") || entry.contains("/org/apache/flink/")) {
                                jars.add(Path.of(entry).getFileName().toString());
                            }
                        }
                    }
                }
                for (String line : Files.readAllLines(Path.of("/proc", pid, "maps"))) {
                    if (line.contains("rocksdb")) {
                        natives.add(line.substring(line.lastIndexOf(' ') + 1));
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            return "unknown (" + e + ")";
        }
        return "pids " + pids + ": class path " + jars + ", native " + (natives.isEmpty() ? "none mapped" : natives);
    }

    static String loadAverage() {
        try {
            String[] fields = Files.readString(Path.of("/proc/loadavg")).split(" ");
            return fields[0] + " " + fields[1] + " " + fields[2];
        } catch (IOException | RuntimeException e) {
            return String.format(Locale.ROOT, "%.2f", java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                    .getSystemLoadAverage());
        }
    }

    private static String firstLine(Throwable e) {
        String message = String.valueOf(e.getMessage());
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }

    static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }
}
