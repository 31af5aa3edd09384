package io.duraflow.bench.flink;

import io.duraflow.bench.CheckpointFileCensus;
import io.duraflow.bench.StateBackendBenchmark;
import java.io.Writer;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * Flink 2.3's side of {@code StateBackendBenchmark}, run in a JVM of its own: Flink's RocksDB
 * backend brings its own {@code org.rocksdb} classes (frocksdbjni 8.10), which must not meet
 * Duraflow's rocksdbjni 10.10 on one class path, so the benchmark starts this class with a class
 * path that leaves rocksdbjni out. It prints progress lines and writes its figures as a
 * properties file (text) for the benchmark to read.
 *
 * <pre>
 *   FlinkRocksDbRuns keyed-sum RECORDS KEYS PARALLELISM WORK_DIR OUT_FILE
 *   FlinkRocksDbRuns savepoint STATE_BYTES VALUE_BYTES PARALLELISM WORK_DIR OUT_FILE
 * </pre>
 *
 * <p>{@code keyed-sum}: {@link FlinkStreamingKeyedSum} with {@code state.backend.type: rocksdb},
 * incremental checkpoints ({@code execution.checkpointing.incremental: true}), nothing inlined
 * ({@code execution.checkpointing.data-inline-threshold: 0}, formerly {@code
 * state.storage.fs.memory-threshold}), checkpoints under WORK_DIR, counted by a {@link
 * CheckpointFileCensus}. {@code savepoint}: {@link FlinkLargeState}.
 */
public final class FlinkRocksDbRuns {
  private FlinkRocksDbRuns() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 6) {
      System.err.println("usage: FlinkRocksDbRuns keyed-sum RECORDS KEYS PARALLELISM WORK_DIR OUT_FILE"
          + " | savepoint STATE_BYTES VALUE_BYTES PARALLELISM WORK_DIR OUT_FILE");
      System.exit(2);
    }
    long first = Long.parseLong(args[1]);
    long second = Long.parseLong(args[2]);
    int parallelism = Integer.parseInt(args[3]);
    Path workDir = Path.of(args[4]);
    Path out = Path.of(args[5]);
    Map<String, String> figures = new LinkedHashMap<>();
    switch (args[0]) {
      case "keyed-sum" -> keyedSum(first, second, parallelism, workDir, figures);
      case "savepoint" -> savepoint(first, (int) second, parallelism, workDir, figures);
      default -> {
        System.err.println("unknown mode '" + args[0] + "': use keyed-sum or savepoint");
        System.exit(2);
      }
    }
    figures.put("rocksdb.classes", rocksDbClasses());
    figures.put("rocksdb.version", rocksDbVersion());
    Properties properties = new Properties();
    properties.putAll(figures);
    try (Writer writer = Files.newBufferedWriter(out, StandardCharsets.UTF_8)) {
      properties.store(writer, "FlinkRocksDbRuns " + String.join(" ", args));
    }
  }

  private static void keyedSum(long records, long keys, int parallelism, Path workDir, Map<String, String> figures)
      throws Exception {
    Path checkpoints = workDir.resolve("checkpoints");
    Map<String, String> state = new LinkedHashMap<>();
    state.put("state.backend.type", "rocksdb");
    state.put("execution.checkpointing.incremental", "true");
    state.put("execution.checkpointing.data-inline-threshold", "0b");
    state.put("state.backend.rocksdb.localdir", workDir.resolve("rocksdb").toString());
    FlinkStreamingKeyedSum.Result result;
    CheckpointFileCensus.Summary files;
    try (CheckpointFileCensus census = CheckpointFileCensus.start(checkpoints)) {
      result = FlinkStreamingKeyedSum.run(records, keys, parallelism, false, state, checkpoints);
      census.close();
      files = census.summary();
    }
    result.lines().forEach(line -> System.out.println("flink 2.3.0 " + line));
    System.out.println("flink 2.3.0 " + StateBackendBenchmark.filesLine(files));
    figures.put("records.per.second", Double.toString(result.recordsPerSecond()));
    figures.put("job.millis", Long.toString(result.jobMillis()));
    figures.put("checkpoints.completed", Integer.toString(result.checkpointsCompleted()));
    figures.put("checkpoints.failed", Integer.toString(result.checkpointsFailed()));
    figures.put("checkpoint.median.millis", Long.toString(result.checkpointMedianMillis()));
    figures.put("checkpoint.max.millis", Long.toString(result.checkpointMaxMillis()));
    figures.put("checkpoint.median.state.bytes", Long.toString(result.checkpointMedianBytes()));
    figures.put("checkpoint.median.written.bytes", Long.toString(result.checkpointMedianCheckpointedBytes()));
    putFiles(files, figures);
    figures.put("exact", Boolean.toString(result.exact()));
    figures.put("sum.of.sums", Long.toString(result.sumOfSums()));
    figures.put("problems", String.join(" | ", result.problems()));
  }

  static void putFiles(CheckpointFileCensus.Summary files, Map<String, String> figures) {
    figures.put("files.checkpoints", Integer.toString(files.checkpoints()));
    figures.put("files.median", Integer.toString(files.medianFiles()));
    figures.put("files.median.shared", Integer.toString(files.medianSharedFiles()));
    figures.put("files.max", Integer.toString(files.maxFiles()));
    figures.put("files.total", Integer.toString(files.totalFiles()));
    figures.put("files.median.bytes", Long.toString(files.medianBytes()));
    figures.put("files.max.bytes", Long.toString(files.maxBytes()));
  }

  private static void savepoint(long stateBytes, int valueBytes, int parallelism, Path workDir,
      Map<String, String> figures) throws Exception {
    FlinkLargeState.Result result =
        FlinkLargeState.run(stateBytes, valueBytes, parallelism, workDir, line -> System.out.println("flink 2.3.0 " + line));
    System.out.printf(Locale.ROOT, "flink 2.3.0 restore: %,.0f ms from submission to the last keyed subtask's first"
            + " record (first subtask %,.0f ms); checked %,d values: %,d wrong, %,d missing -> %s%n",
        result.restoreMillis(), result.firstSubtaskMillis(), result.checked(), result.mismatched(), result.missing(),
        result.exact() ? "exact" : "WRONG");
    figures.put("keys", Long.toString(result.keys()));
    figures.put("build.millis", Long.toString(result.buildMillis()));
    figures.put("savepoint.millis", Long.toString(result.savepointMillis()));
    figures.put("savepoint.bytes", Long.toString(result.savepointBytes()));
    figures.put("restore.millis", Double.toString(result.restoreMillis()));
    figures.put("restore.first.subtask.millis", Double.toString(result.firstSubtaskMillis()));
    figures.put("checked", Long.toString(result.checked()));
    figures.put("exact", Boolean.toString(result.exact()));
  }

  /** Where this JVM's {@code org.rocksdb.RocksDB} came from (must be Flink's frocksdbjni). */
  static String rocksDbClasses() {
    try {
      URL location = Class.forName("org.rocksdb.RocksDB").getProtectionDomain().getCodeSource().getLocation();
      return location.toString();
    } catch (ReflectiveOperationException | RuntimeException e) {
      return "not loaded: " + e;
    }
  }

  private static String rocksDbVersion() {
    try {
      Object version = Class.forName("org.rocksdb.RocksDB").getMethod("rocksdbVersion").invoke(null);
      return String.valueOf(version);
    } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
      return "unknown (" + e + ")";
    }
  }
}
