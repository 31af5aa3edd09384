package io.duraflow.bench.flink;

import io.duraflow.bench.CheckpointFileCensus;
import io.duraflow.bench.CheckpointSpace;
import io.duraflow.bench.CheckpointTree;
import io.duraflow.bench.FileMergingRun;
import io.duraflow.bench.RunLength;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * Flink 2.3's side of {@code FileMergingBenchmark}, in a JVM of its own (Flink's RocksDB,
 * frocksdbjni, must not meet Duraflow's rocksdbjni; see {@code StateBackendBenchmark}):
 * {@link FlinkStreamingKeyedSum} at the given parallelism on a MiniCluster with one TaskManager,
 * RocksDB ({@code state.backend.type: rocksdb}), incremental checkpoints every 1 s, nothing
 * inlined ({@code execution.checkpointing.data-inline-threshold: 0}), once per file-merging mode
 * and round ({@link FileMergingRun#mergingConfig}: {@code execution.checkpointing.file-merging.enabled},
 * {@code .across-checkpoint-boundary}), each run into a checkpoint directory of its own scanned by
 * a {@link CheckpointFileCensus} with {@link FlinkCheckpointReferences}. A first run with merging
 * off and {@code WARMUP_RECORDS} records warms the JVM up and is not reported. {@code LENGTH} is
 * {@code <seconds>s/<records>}: with records 0 each run is sized to take about that many seconds
 * ({@link RunLength}), else it has that many records.
 *
 * <pre>
 *   FlinkFileMergingRuns LENGTH KEYS PARALLELISM WORK_DIR OUT_FILE MODES ROUNDS WARMUP_RECORDS
 * </pre>
 *
 * Writes every run's figures under {@code run.<n>.} ({@link FileMergingRun#put}) and {@code runs}.
 */
public final class FlinkFileMergingRuns {
  static final String ENGINE = "flink 2.3.0";

  private FlinkFileMergingRuns() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 8) {
      System.err.println("usage: FlinkFileMergingRuns LENGTH KEYS PARALLELISM WORK_DIR OUT_FILE MODES ROUNDS"
          + " WARMUP_RECORDS");
      System.exit(2);
    }
    String[] length = args[0].split("s/");
    double seconds = Double.parseDouble(length[0]);
    long fixedRecords = Long.parseLong(length[1]);
    long keys = Long.parseLong(args[1]);
    int parallelism = Integer.parseInt(args[2]);
    Path workDir = Path.of(args[3]);
    Path out = Path.of(args[4]);
    List<String> modes = List.of(args[5].split(","));
    int rounds = Integer.parseInt(args[6]);
    long warmupRecords = Long.parseLong(args[7]);
    Map<String, String> figures = new LinkedHashMap<>();
    double warmupRate = 50_000;
    if (warmupRecords > 0) {
      FlinkStreamingKeyedSum.Result warmup = FlinkStreamingKeyedSum.run(warmupRecords, keys, parallelism, false,
          state(workDir, "off"), workDir.resolve("warmup"));
      warmupRate = warmup.recordsPerSecond();
      System.out.printf("%s warm-up: %,d records, %,.0f records/s, %s (not reported)%n", ENGINE, warmupRecords,
          warmup.recordsPerSecond(), warmup.exact() ? "exact" : "NOT EXACT");
    }
    RunLength runLength = new RunLength(seconds, fixedRecords, warmupRate);
    int run = 0;
    for (int round = 1; round <= rounds; round++) {
      for (String mode : io.duraflow.bench.FileMergingBenchmark.modesOfRound(modes, round)) {
        FileMergingRun result = run(runLength.next(), keys, parallelism, workDir.resolve(mode + "-" + round), mode,
            round);
        runLength.observed(result.recordsPerSecond());
        result.lines().forEach(System.out::println);
        result.put("run." + (++run) + ".", figures);
      }
    }
    figures.put("runs", Integer.toString(run));
    figures.put("rocksdb.classes", FlinkRocksDbRuns.rocksDbClasses());
    Properties properties = new Properties();
    properties.putAll(figures);
    try (Writer writer = Files.newBufferedWriter(out, StandardCharsets.UTF_8)) {
      properties.store(writer, "FlinkFileMergingRuns " + String.join(" ", args));
    }
  }

  private static Map<String, String> state(Path workDir, String mode) {
    Map<String, String> state = new LinkedHashMap<>();
    state.put("state.backend.type", "rocksdb");
    state.put("execution.checkpointing.incremental", "true");
    state.put("execution.checkpointing.data-inline-threshold", "0b");
    state.put("state.backend.rocksdb.localdir", workDir.resolve("rocksdb").toString());
    state.putAll(FileMergingRun.mergingConfig(mode));
    return state;
  }

  private static FileMergingRun run(long records, long keys, int parallelism, Path dir, String mode, int round)
      throws Exception {
    Path checkpoints = dir.resolve("checkpoints");
    Files.createDirectories(checkpoints);
    FlinkCheckpointReferences references = new FlinkCheckpointReferences(checkpoints);
    FlinkStreamingKeyedSum.Result result;
    CheckpointFileCensus census = CheckpointFileCensus.start(CheckpointTree.local(checkpoints), references,
        Map.of());
    try {
      result = FlinkStreamingKeyedSum.run(records, keys, parallelism, false, state(dir, mode), checkpoints);
    } finally {
      census.close();
    }
    if (references.unresolvedHandles() > 0) {
      System.out.printf("%s merging %s: %d state handles not mapped to a file (live bytes may be low)%n", ENGINE, mode,
          references.unresolvedHandles());
    }
    census.unreadableMetadata().forEach((file, why) ->
        System.out.printf("%s merging %s: cannot read %s: %s%n", ENGINE, mode, file, why));
    io.duraflow.bench.FileMergingBenchmark.printPerCheckpoint(ENGINE + " local merging " + mode, census);
    return new FileMergingRun(ENGINE, mode, "local", round, records, result.jobMillis(), result.recordsPerSecond(),
        Double.NaN, result.checkpointsCompleted(), result.checkpointsFailed(), result.checkpointMedianMillis(),
        result.checkpointMaxMillis(), census.summary(), census.spaceSummary(), census.describeMedianCheckpoint(),
        Map.of(), result.exact(), String.join(" | ", result.problems()));
  }
}
