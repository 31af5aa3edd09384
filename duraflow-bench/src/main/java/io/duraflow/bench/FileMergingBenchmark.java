package io.duraflow.bench;

import io.duraflow.fs.FileSystem;
import io.duraflow.fs.FileSystems;
import io.duraflow.fs.FsPath;
import io.duraflow.fs.hadoop.HadoopFileSystem;
import java.io.File;
import java.io.IOException;
import java.io.Reader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.function.LongSupplier;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.server.namenode.NameNode;
import org.apache.hadoop.metrics2.lib.MutableCounterLong;

/**
 * The benchmark of checkpoint file merging (off, within, across checkpoints), Duraflow and Apache
 * Flink 2.3 side by side, locally and on HDFS. See docs/design/benchmarks.md#filemergingbenchmark.
 */
public final class FileMergingBenchmark {
    static final int PARALLELISM = 4;
    static final String FLINK_MAIN = "io.duraflow.bench.flink.FlinkFileMergingRuns";
    static final String DURAFLOW = "duraflow";

    private FileMergingBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        double seconds = Double.parseDouble(System.getProperty("bench.fm-seconds", "20"));
        long fixedRecords = Long.getLong("bench.fm-records", 0);
        long keys = Long.getLong("bench.fm-keys", 100_000L);
        int rounds = Integer.getInteger("bench.fm-rounds", 3);
        int hdfsRounds = Integer.getInteger("bench.fm-hdfs-rounds", 1);
        List<String> modes = List.of(System.getProperty("bench.fm-modes", "off,within,across").split(","));
        Set<String> parts = Set.of(System.getProperty("bench.fm-parts", "local,hdfs").split(","));
        Set<String> engines = Set.of(System.getProperty("bench.fm-engines", "flink,duraflow").split(","));
        long warmup = Long.getLong("bench.fm-warmup-records", 4_000_000L);
        long flinkWarmup = Long.getLong("bench.fm-flink-warmup-records", 1_000_000L);
        System.out.printf(Locale.ROOT, "File merging benchmark: keyed sum, %s, %,d keys, parallelism %d on"
                        + " one TaskManager, RocksDB incremental, checkpoints every 1 s, nothing inlined; modes %s, %d"
                        + " round(s) (HDFS: %d), warm-up %,d records (Flink %,d); parts %s; %d cores; uptime: %s%n",
                fixedRecords > 0 ? String.format(Locale.ROOT, "%,d records per run", fixedRecords)
                        : String.format(Locale.ROOT, "runs of about %.0f s", seconds), keys, PARALLELISM, modes, rounds,
                hdfsRounds, warmup, flinkWarmup, parts, Runtime.getRuntime().availableProcessors(), uptime());
        Path workDir = Files.createTempDirectory("file-merging-bench-");
        List<FileMergingRun> runs = new ArrayList<>();
        List<String> wrong = new ArrayList<>();
        try {
            if (engines.contains("flink") && parts.contains("local")) {
                if (ClassLoader.getSystemResource(FLINK_MAIN.replace('.', '/') + ".class") == null) {
                    System.out.println("flink: not measured (build with -Pflink to compare with Apache Flink 2.3.0)");
                } else {
                    runs.addAll(runFlink(seconds, fixedRecords, keys, modes, rounds, flinkWarmup,
                            workDir.resolve("flink")));
                    System.out.printf("uptime after Flink's runs: %s%n", uptime());
                }
            }
            if (engines.contains(DURAFLOW)) {
                runs.addAll(runDuraflow(seconds, fixedRecords, keys, modes, rounds, hdfsRounds, warmup, parts,
                        workDir.resolve(DURAFLOW)));
                System.out.printf("uptime after Duraflow's runs: %s%n", uptime());
            }
            for (FileMergingRun run : runs) {
                if (!run.exact()) {
                    wrong.add(run.engine() + " " + run.fileSystem() + " " + run.mode() + " round " + run.round() + ": "
                            + run.problems());
                }
            }
            FileMergingReport.print(runs, modes, System.out);
        } finally {
            StateBackendBenchmark.deleteRecursively(workDir);
        }
        if (!wrong.isEmpty()) {
            throw new IllegalStateException("benchmark result is wrong: " + String.join("; ", wrong));
        }
    }

    // ------------------------------------------------------------------ Duraflow

    private static List<FileMergingRun> runDuraflow(double seconds, long fixedRecords, long keys, List<String> modes,
            int rounds, int hdfsRounds, long warmup, Set<String> parts, Path workDir) throws Exception {
        Files.createDirectories(workDir);
        List<FileMergingRun> runs = new ArrayList<>();
        MiniDFSCluster hdfs = null;
        try {
            if (parts.contains("hdfs")) {
                hdfs = startHdfs(workDir.resolve("hdfs"));
                // The cluster's processes read core-site.xml from their class path (HadoopFileSystemFactory).
                Path conf = Files.createDirectories(workDir.resolve("hadoop-conf"));
                Files.writeString(conf.resolve("core-site.xml"), "<?xml version=\"1.0\"?>\n<configuration>\n"
                        + "  <property><name>dfs.replication</name><value>1</value></property>\n</configuration>\n",
                        StandardCharsets.UTF_8);
                System.setProperty("bench.duraflow-extra-classpath", conf.toString());
                System.out.printf("HDFS: NameNode at hdfs://127.0.0.1:%d/ (in this JVM, one DataNode, replication 1)%n",
                        hdfs.getNameNodePort());
            }
            System.out.printf("duraflow: local cluster of 1 JobManager and 1 TaskManager with %d slots (Duraflow"
                    + " shares no slots: a source and a keyed task per subtask index), %s%n", 2 * PARALLELISM,
                    new java.util.TreeMap<>(StateBackendBenchmark.DURAFLOW_ROCKSDB));
            try (DuraflowStreamingRuns cluster = DuraflowStreamingRuns.start(PARALLELISM,
                    StateBackendBenchmark.DURAFLOW_ROCKSDB, 1, Map.of("taskmanager.slots", Integer.toString(2 * PARALLELISM)))) {
                double warmupRate = 100_000;
                if (warmup > 0) {
                    Map<String, String> config = new LinkedHashMap<>(FileMergingRun.mergingConfig("off"));
                    config.put("execution.checkpointing.dir", workDir.resolve("warmup").toString());
                    DuraflowStreamingRuns.Run run = cluster.run(warmup, keys, false, config);
                    warmupRate = run.recordsPerSecond();
                    System.out.printf(Locale.ROOT, "duraflow warm-up: %,d records, %,.0f records/s, %s (not reported)%n",
                            warmup, run.recordsPerSecond(), run.exact() ? "exact" : "NOT EXACT");
                }
                RunLength local = new RunLength(seconds, fixedRecords, warmupRate);
                if (parts.contains("local")) {
                    for (int round = 1; round <= rounds; round++) {
                        for (String mode : modesOfRound(modes, round)) {
                            FileMergingRun run = localRun(cluster, local.next(), keys, mode, round,
                                    workDir.resolve(mode + "-" + round));
                            local.observed(run.recordsPerSecond());
                            run.lines().forEach(System.out::println);
                            runs.add(run);
                        }
                    }
                    System.out.println("duraflow TaskManager's org.rocksdb: "
                            + StateBackendBenchmark.taskManagerRocksDb(cluster.workDir()));
                    spaceControlLines(cluster.workDir()).forEach(System.out::println);
                }
                if (hdfs != null) {
                    // Sized from the local runs (or the warm-up); HDFS runs are slower, so longer.
                    RunLength onHdfs = new RunLength(seconds, fixedRecords, local.next() / seconds);
                    for (int round = 1; round <= hdfsRounds; round++) {
                        for (String mode : modesOfRound(modes, round)) {
                            FileMergingRun run = hdfsRun(cluster, hdfs, onHdfs.next(), keys, mode, round);
                            onHdfs.observed(run.recordsPerSecond());
                            run.lines().forEach(System.out::println);
                            runs.add(run);
                        }
                    }
                }
            }
        } finally {
            if (hdfs != null) {
                hdfs.shutdown(true);
            }
        }
        return runs;
    }

    private static FileMergingRun localRun(DuraflowStreamingRuns cluster, long records, long keys, String mode,
            int round, Path checkpoints) throws Exception {
        Files.createDirectories(checkpoints);
        FsPath root = FsPath.of(checkpoints);
        CheckpointFileCensus census = CheckpointFileCensus.start(CheckpointTree.local(checkpoints),
                new DuraflowCheckpointReferences(FileSystems.get(root), root), Map.of());
        DuraflowStreamingRuns.Run run;
        try {
            run = cluster.run(records, keys, false, config(mode, checkpoints.toString()));
        } finally {
            census.close();
        }
        census.unreadableMetadata().forEach((file, why) ->
                System.out.printf("duraflow merging %s: cannot read %s: %s%n", mode, file, why));
        printPerCheckpoint("duraflow local merging " + mode, census);
        return result(run, mode, "local", round, census, Map.of());
    }

    private static FileMergingRun hdfsRun(DuraflowStreamingRuns cluster, MiniDFSCluster hdfs, long records, long keys,
            String mode, int round) throws Exception {
        URI nameNode = URI.create("hdfs://127.0.0.1:" + hdfs.getNameNodePort() + "/");
        FsPath root = FsPath.parse(nameNode + "duraflow-" + mode + "-" + round);
        DuraflowStreamingRuns.Run run;
        CheckpointFileCensus census;
        // Not closed: the client goes with the HDFS at the end of the benchmark.
        FileSystem fileSystem = new HadoopFileSystem(nameNode, hdfs.getConfiguration(0));
        census = CheckpointFileCensus.start(CheckpointTree.of(fileSystem, root),
                new DuraflowCheckpointReferences(fileSystem, root), nameNodeCounters());
        try {
            run = cluster.run(records, keys, false, config(mode, root.toString()));
        } finally {
            census.close();
        }
        printPerCheckpoint("duraflow hdfs merging " + mode, census);
        if (Boolean.getBoolean("bench.verbose")) {
            census.counterDeltas().forEach((id, delta) -> System.out.printf("duraflow hdfs merging %s: NameNode at chk"
                    + " %d: %s%n", mode, id, delta));
        }
        return result(run, mode, "hdfs", round, census, FileMergingRun.counterFigures(census.counterDeltas()));
    }

    /** With {@code -Dbench.verbose=true}: the census's line per checkpoint. */
    public static void printPerCheckpoint(String prefix, CheckpointFileCensus census) {
        if (Boolean.getBoolean("bench.verbose")) {
            census.perCheckpointLines().forEach(line -> System.out.println(prefix + ": " + line));
        }
    }

    /** The modes of round {@code round} (from 1): rotated by one per round, so no mode always runs first. */
    public static List<String> modesOfRound(List<String> modes, int round) {
        List<String> rotated = new ArrayList<>(modes);
        Collections.rotate(rotated, -((round - 1) % modes.size()));
        return rotated;
    }

    private static Map<String, String> config(String mode, String checkpointDir) {
        Map<String, String> config = new LinkedHashMap<>(FileMergingRun.mergingConfig(mode));
        config.put("execution.checkpointing.dir", checkpointDir);
        return config;
    }

    private static FileMergingRun result(DuraflowStreamingRuns.Run run, String mode, String fileSystem, int round,
            CheckpointFileCensus census, Map<String, Double> nameNode) {
        return new FileMergingRun(DURAFLOW, mode, fileSystem, round, run.records(), run.jobMillis(),
                run.recordsPerSecond(), run.taskManagerCpuNanosPerRecord(), run.checkpointsCompleted(),
                run.checkpointsFailed(), run.checkpointMedianMillis(), run.checkpointMaxMillis(), census.summary(),
                census.spaceSummary(), census.describeMedianCheckpoint(), nameNode, run.exact(),
                String.join(" | ", run.problems()));
    }

    /** The TaskManager's space-control decisions (file merging), from its log: how often and the last one. */
    private static List<String> spaceControlLines(Path clusterWorkDir) throws IOException {
        List<String> found = new ArrayList<>();
        try (var logs = Files.newDirectoryStream(clusterWorkDir.resolve("log"), "taskmanager-*.log")) {
            for (Path log : logs) {
                for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
                    if (line.contains("live bytes") && line.contains("take no new segments")) {
                        found.add(line);
                    }
                }
            }
        }
        List<String> lines = new ArrayList<>();
        lines.add("duraflow TaskManager: space control picked files " + found.size() + " times"
                + (found.isEmpty() ? "" : "; the last: " + found.get(found.size() - 1).trim()));
        return lines;
    }

    // ------------------------------------------------------------------ HDFS

    static MiniDFSCluster startHdfs(Path baseDirectory) throws IOException {
        org.apache.hadoop.conf.Configuration configuration = new org.apache.hadoop.conf.Configuration();
        configuration.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, baseDirectory.toString());
        configuration.set("dfs.namenode.rpc-address", "127.0.0.1:0");
        configuration.set("dfs.namenode.http-address", "127.0.0.1:0");
        configuration.set("dfs.datanode.address", "127.0.0.1:0");
        configuration.set("dfs.datanode.http.address", "127.0.0.1:0");
        configuration.set("dfs.datanode.ipc.address", "127.0.0.1:0");
        configuration.setInt("dfs.replication", 1);
        configuration.setBoolean("dfs.permissions.enabled", false);
        return new MiniDFSCluster.Builder(configuration).numDataNodes(1).format(true).build();
    }

    /**
     * The NameNode's counters of created files ({@code CreateFileOps}: create calls) and of created
     * files and directories ({@code FilesCreated}), read from the NameNode's metrics in this JVM as
     * they are counted ({@code NameNode.getNameNodeMetrics()}; its JMX bean {@code NameNodeActivity}
     * shows the same counters but refreshes them only every 10 s, too late to tell checkpoints apart).
     */
    static Map<String, LongSupplier> nameNodeCounters() throws ReflectiveOperationException {
        Object metrics = NameNode.getNameNodeMetrics();
        Map<String, LongSupplier> counters = new LinkedHashMap<>();
        for (String[] counter : new String[][] {{"CreateFileOps", "createFileOps"}, {"FilesCreated", "filesCreated"}}) {
            java.lang.reflect.Field field = metrics.getClass().getDeclaredField(counter[1]);
            field.setAccessible(true);
            MutableCounterLong value = (MutableCounterLong) field.get(metrics);
            counters.put(counter[0], value::value);
        }
        return counters;
    }

    // ------------------------------------------------------------------ Flink

    private static List<FileMergingRun> runFlink(double seconds, long fixedRecords, long keys, List<String> modes,
            int rounds, long warmup, Path dir) throws Exception {
        Files.createDirectories(dir);
        Path out = dir.resolve("figures.properties");
        List<String> classPath = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (!entry.contains("/org/rocksdb/") && !entry.contains("hadoop-client-minicluster")) {
                classPath.add(entry);
            }
        }
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx2g", "-Dlogback.configurationFile=bench-logback.xml",
                "-Dbench.verbose=" + Boolean.getBoolean("bench.verbose"), "-cp", String.join(File.pathSeparator,
                        classPath), FLINK_MAIN, seconds + "s/" + fixedRecords, Long.toString(keys), Integer.toString(PARALLELISM),
                dir.toString(), out.toString(), String.join(",", modes), Integer.toString(rounds), Long.toString(warmup)));
        System.out.printf("flink 2.3.0: MiniCluster with 1 TaskManager, %d slots, in a JVM of its own (class path"
                + " without rocksdbjni)%n", PARALLELISM);
        Process process = new ProcessBuilder(command).inheritIO().start();
        int exit;
        try {
            exit = process.waitFor();
        } finally {
            process.destroyForcibly();
        }
        if (exit != 0) {
            throw new IllegalStateException("Flink's runs exited with " + exit + " (see their output above)");
        }
        Properties figures = new Properties();
        try (Reader reader = Files.newBufferedReader(out, StandardCharsets.UTF_8)) {
            figures.load(reader);
        }
        String classes = figures.getProperty("rocksdb.classes", "");
        System.out.printf("flink 2.3.0 org.rocksdb: %s%n", classes);
        if (!classes.contains("frocksdbjni")) {
            throw new IllegalStateException("Flink's JVM did not load Flink's RocksDB (frocksdbjni) but " + classes);
        }
        List<FileMergingRun> runs = new ArrayList<>();
        int count = Integer.parseInt(figures.getProperty("runs", "0"));
        for (int i = 1; i <= count; i++) {
            runs.add(FileMergingRun.from(figures, "run." + i + "."));
        }
        return runs;
    }

    static String uptime() {
        try {
            Process process = new ProcessBuilder("uptime").redirectErrorStream(true).start();
            String text = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            process.waitFor();
            return text;
        } catch (IOException | RuntimeException e) {
            return "load average " + StateBackendBenchmark.loadAverage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "load average " + StateBackendBenchmark.loadAverage();
        }
    }
}
