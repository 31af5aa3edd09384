package io.duraflow.bench.flink;

import io.duraflow.examples.StreamingKeyedSum;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Stream;

import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.DeploymentOptions;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.WebOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.checkpoint.AbstractCheckpointStats;
import org.apache.flink.runtime.checkpoint.CheckpointStatsSnapshot;
import org.apache.flink.runtime.checkpoint.CheckpointStatsStatus;
import org.apache.flink.runtime.checkpoint.FailedCheckpointStats;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.runtime.minicluster.RpcServiceSharing;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.CloseableIterator;
import org.apache.flink.util.Collector;
import org.slf4j.LoggerFactory;

/**
 * Apache Flink side of the streaming keyed-sum benchmark; built only with the Maven
 * profile {@code flink}. The job is Duraflow's {@link StreamingKeyedSum} written for Flink 2.3:
 *
 * <p>{@code DataGeneratorSource} (record i = (i * 7919 % keys, i), i in [0, records)) {@code ->
 * keyBy(key) -> KeyedProcessFunction} keeping (sum, count) per key in a {@code
 * ValueState<Tuple2<Long, Long>>}, replaced through {@code update}. Nothing is emitted per record;
 * each key emits (key, sum, count) once, when its count reaches {@link
 * StreamingKeyedSum#expectedCount} (the same rule as the Duraflow job), and those records come
 * back through Flink's collect sink for the exactness check (one record per key, sum of sums =
 * N(N-1)/2).
 *
 * <p>Setup: streaming mode, parallelism 2 on a {@link MiniCluster} (one TaskManager, one slot per
 * subtask) started for the call and shut down before it returns, heap state ({@code
 * state.backend.type: hashmap}) unless the caller's state configuration says otherwise (issue
 * 11's benchmark: RocksDB, incremental), checkpoints every 1 s to a temporary directory (deleted
 * afterwards) or the caller's, fixed-delay restarts with 0 s delay, REST bound to 127.0.0.1 on a
 * free port.
 *
 * <p>Checkpoint figures come from the job's {@link CheckpointStatsSnapshot} (the data Flink's REST
 * endpoint {@code /jobs/<id>/checkpoints} serves), read from the archived execution graph after
 * the job ended, with the history raised to hold every checkpoint of the run. Durations are end to
 * end (trigger to last acknowledgement); size is the full state size of a checkpoint.
 *
 * <p>Failure run: a map chained after the source throws when it sees record {@link
 * #halfwayIndex} = records / (2 * parallelism), only in attempt 0 of its subtask. The generator
 * deals [0, records) into one contiguous range per subtask, so that index is the middle of the
 * first range, reached when the input is about half processed (index records / 2 would be the
 * first record of the second range, a failure at the very start). The recovery time is from the
 * throw to the first record the keyed function processes in a later attempt; records replayed are
 * the records the keyed function processed in all attempts minus {@code records}. Both are read
 * from static counters, which works because the MiniCluster runs the tasks in this JVM and the job
 * ships no jars of its own (its classes come from the application class loader).
 */
public final class FlinkStreamingKeyedSum {

  public static final long DEFAULT_RECORDS = StreamingKeyedSum.DEFAULT_RECORDS;
  public static final long DEFAULT_KEYS = StreamingKeyedSum.DEFAULT_KEYS;
  public static final int DEFAULT_PARALLELISM = 2;
  public static final Duration CHECKPOINT_INTERVAL = Duration.ofSeconds(1);

  private static final TypeInformation<Tuple2<Long, Long>> RECORD = Types.TUPLE(Types.LONG, Types.LONG);
  private static final TypeInformation<Tuple3<Long, Long, Long>> SUM =
      Types.TUPLE(Types.LONG, Types.LONG, Types.LONG);

  // Counters of the run in progress; reset by run(), one run at a time.
  private static final LongAdder PROCESSED = new LongAdder();
  private static final AtomicLong FAILED_AT_NANOS = new AtomicLong();
  private static final AtomicLong RESUMED_AT_NANOS = new AtomicLong();

  private FlinkStreamingKeyedSum() {}

  /**
   * Outcome of one run.
   *
   * @param jobMillis the job's net runtime as Flink reports it
   * @param recordsPerSecond records / jobMillis
   * @param checkpointsCompleted completed checkpoints in the run (including the final one)
   * @param checkpointsFailed failed checkpoints in the run
   * @param checkpointFailureReasons the distinct reasons of the failed checkpoints (at most 3)
   * @param checkpointMedianMillis median end-to-end duration of the completed checkpoints
   * @param checkpointMaxMillis longest end-to-end duration of a completed checkpoint
   * @param checkpointMedianBytes median state size of a completed checkpoint
   * @param checkpointMedianCheckpointedBytes median bytes a completed checkpoint wrote (Flink's
   *     checkpointed size: the incremental size with RocksDB incremental checkpoints, else the full)
   * @param keysEmitted distinct keys in the collected result
   * @param duplicateEmissions collected records beyond one per key
   * @param sumOfSums sum of the collected sums
   * @param problems what is wrong with the collected result; empty when it is exact
   * @param recordsProcessed records the keyed function processed, over all attempts
   * @param recordsReplayed recordsProcessed - records
   * @param recoveryMillis from the injected exception to the first record processed after the
   *     restart; -1 without a failure
   */
  public record Result(
      long records,
      long keys,
      int parallelism,
      boolean failureInjected,
      long jobMillis,
      double recordsPerSecond,
      int checkpointsCompleted,
      int checkpointsFailed,
      List<String> checkpointFailureReasons,
      long checkpointMedianMillis,
      long checkpointMaxMillis,
      long checkpointMedianBytes,
      long checkpointMedianCheckpointedBytes,
      long keysEmitted,
      long duplicateEmissions,
      long sumOfSums,
      List<String> problems,
      long recordsProcessed,
      long recordsReplayed,
      double recoveryMillis) {

    public boolean exact() {
      return problems.isEmpty() && duplicateEmissions == 0;
    }

    /** Readable lines for the benchmark's output. */
    public List<String> lines() {
      List<String> lines = new ArrayList<>();
      lines.add(
          String.format(
              Locale.ROOT,
              "%s: %,d records in %,d ms = %,.0f records/s",
              failureInjected ? "failure run" : "run",
              records,
              jobMillis,
              recordsPerSecond));
      lines.add(
          String.format(
              Locale.ROOT,
              "checkpoints: %d completed, %d failed | duration median %,d ms, max %,d ms | size %,.2f MB"
                  + " (median)%s",
              checkpointsCompleted,
              checkpointsFailed,
              checkpointMedianMillis,
              checkpointMaxMillis,
              checkpointMedianBytes / 1e6,
              checkpointMedianCheckpointedBytes == checkpointMedianBytes
                  ? ""
                  : String.format(
                      Locale.ROOT,
                      ", %,.2f MB written (median checkpointed size)",
                      checkpointMedianCheckpointedBytes / 1e6)));
      if (!checkpointFailureReasons.isEmpty()) {
        lines.add("failed checkpoints: " + String.join(" | ", checkpointFailureReasons));
      }
      lines.add(
          String.format(
              Locale.ROOT,
              "exactness: %,d keys, sum of sums %,d (expected %,d) -> %s",
              keysEmitted,
              sumOfSums,
              StreamingKeyedSum.expectedSumOfSums(records),
              exact()
                  ? "exact"
                  : "WRONG: " + problems + (duplicateEmissions > 0 ? " duplicates " + duplicateEmissions : "")));
      if (failureInjected) {
        lines.add(
            String.format(
                Locale.ROOT,
                "after the task exception: records flow again %.0f ms later, %,d records replayed",
                recoveryMillis,
                recordsReplayed));
      }
      return lines;
    }
  }

  /** Usage: {@code FlinkStreamingKeyedSum [records [keys [parallelism]]]}; runs without, then with a failure. */
  public static void main(String[] args) throws Exception {
    long records = args.length > 0 ? Long.parseLong(args[0].replace("_", "")) : DEFAULT_RECORDS;
    long keys = args.length > 1 ? Long.parseLong(args[1].replace("_", "")) : DEFAULT_KEYS;
    int parallelism = args.length > 2 ? Integer.parseInt(args[2]) : DEFAULT_PARALLELISM;
    run(records, keys, parallelism, false).lines().forEach(System.out::println);
    run(records, keys, parallelism, true).lines().forEach(System.out::println);
  }

  /**
   * Runs the keyed sum on a MiniCluster started for this call.
   *
   * @param failHalfway whether attempt 0 throws at record {@link #halfwayIndex}
   */
  public static Result run(long records, long keys, int parallelism, boolean failHalfway)
      throws Exception {
    return run(records, keys, parallelism, failHalfway, Map.of("state.backend.type", "hashmap"), null);
  }

  /**
   * Runs the keyed sum on a MiniCluster started for this call, with {@code stateConfig} (Flink
   * configuration keys such as {@code state.backend.type}) on top of the setup above.
   *
   * @param checkpointDir where checkpoints go, left for the caller to inspect and delete; null: a
   *     temporary directory deleted afterwards
   */
  public static Result run(
      long records,
      long keys,
      int parallelism,
      boolean failHalfway,
      Map<String, String> stateConfig,
      Path checkpointDir)
      throws Exception {
    if (records < 1) {
      throw new IllegalArgumentException("records must be >= 1 for a bounded benchmark run: " + records);
    }
    if (parallelism < 1) {
      throw new IllegalArgumentException("parallelism must be >= 1: " + parallelism);
    }
    long failAtRecord = failHalfway ? halfwayIndex(records, parallelism) : -1;
    quietFlinkLogging();
    PROCESSED.reset();
    FAILED_AT_NANOS.set(0);
    RESUMED_AT_NANOS.set(0);

    boolean ownCheckpointDir = checkpointDir == null;
    if (ownCheckpointDir) {
      checkpointDir = Files.createTempDirectory("flink-streaming-keyed-sum-");
    }
    Configuration conf = new Configuration();
    conf.set(RestOptions.ADDRESS, "127.0.0.1");
    conf.set(RestOptions.BIND_ADDRESS, "127.0.0.1");
    conf.set(RestOptions.BIND_PORT, "0");
    conf.set(DeploymentOptions.TARGET, MiniClusterExecutor.NAME);
    conf.set(DeploymentOptions.ATTACHED, true);
    conf.set(ExecutionOptions.RUNTIME_MODE, RuntimeExecutionMode.STREAMING);
    conf.set(CoreOptions.DEFAULT_PARALLELISM, parallelism);
    conf.set(StateBackendOptions.STATE_BACKEND, "hashmap");
    conf.addAll(Configuration.fromMap(stateConfig));
    conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, CHECKPOINT_INTERVAL);
    conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, checkpointDir.toUri().toString());
    conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
    conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 3);
    conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ZERO);
    // Keep every checkpoint of the run in the statistics (default: the last 10).
    conf.set(WebOptions.CHECKPOINTS_HISTORY_SIZE, 100_000);

    MiniCluster cluster =
        new MiniCluster(
            new MiniClusterConfiguration.Builder()
                .setConfiguration(conf)
                .setNumTaskManagers(1)
                .setNumSlotsPerTaskManager(parallelism)
                .setRpcServiceSharing(RpcServiceSharing.SHARED)
                .build());
    Map<Long, Tuple3<Long, Long, Long>> byKey = new HashMap<>();
    long duplicates = 0;
    JobExecutionResult jobResult;
    CheckpointStatsSnapshot checkpoints;
    try {
      cluster.start();
      StreamExecutionEnvironment env =
          new StreamExecutionEnvironment(
              new MiniClusterExecutor(cluster), conf, FlinkStreamingKeyedSum.class.getClassLoader());

      DataGeneratorSource<Tuple2<Long, Long>> source =
          new DataGeneratorSource<>(
              new KeyedRecords(keys), records, RateLimiterStrategy.noOp(), RECORD);
      DataStream<Tuple2<Long, Long>> input =
          env.fromSource(source, WatermarkStrategy.noWatermarks(), "generate records").uid("generate-records");
      if (failAtRecord >= 0) {
        input = input.map(new FailOnce(failAtRecord)).returns(RECORD).name("fail once").uid("fail-once");
      }
      DataStream<Tuple3<Long, Long, Long>> sums =
          input
              .keyBy(FlinkStreamingKeyedSum::keyOf, Types.LONG)
              .process(new SumPerKey(records, keys))
              .returns(SUM)
              .name("sum per key")
              .uid("sum-per-key");

      DataStream.Collector<Tuple3<Long, Long, Long>> collector = new DataStream.Collector<>();
      sums.collectAsync(collector);
      JobClient client = env.executeAsync("flink-streaming-keyed-sum");
      try (CloseableIterator<Tuple3<Long, Long, Long>> it = collector.getOutput()) {
        while (it.hasNext()) {
          Tuple3<Long, Long, Long> sum = it.next();
          if (byKey.put(sum.f0, sum) != null) {
            duplicates++;
          }
        }
      }
      jobResult = client.getJobExecutionResult().get();
      checkpoints = cluster.getExecutionGraph(client.getJobID()).get().getCheckpointStatsSnapshot();
      env.close();
    } finally {
      cluster.closeAsync().get(60, TimeUnit.SECONDS);
      if (ownCheckpointDir) {
        deleteRecursively(checkpointDir);
      }
    }

    List<io.duraflow.api.types.Tuple3<Long, Long, Long>> forCheck = new ArrayList<>();
    long sumOfSums = 0;
    for (Tuple3<Long, Long, Long> sum : byKey.values()) {
      forCheck.add(io.duraflow.api.types.Tuple3.of(sum.f0, sum.f1, sum.f2));
      sumOfSums += sum.f1;
    }
    List<String> problems = StreamingKeyedSum.verify(forCheck, records, keys);

    List<Long> durations = new ArrayList<>();
    List<Long> sizes = new ArrayList<>();
    List<Long> checkpointed = new ArrayList<>();
    int failed = 0;
    java.util.Set<String> failureReasons = new java.util.LinkedHashSet<>();
    for (AbstractCheckpointStats stats : checkpoints.getHistory().getCheckpoints()) {
      if (stats.getStatus() == CheckpointStatsStatus.COMPLETED) {
        durations.add(stats.getEndToEndDuration());
        sizes.add(stats.getStateSize());
        checkpointed.add(stats.getCheckpointedSize());
      } else if (stats.getStatus() == CheckpointStatsStatus.FAILED) {
        failed++;
        if (stats instanceof FailedCheckpointStats failure && failureReasons.size() < 3) {
          failureReasons.add(String.valueOf(failure.getFailureMessage()));
        }
      }
    }
    long jobMillis = jobResult.getNetRuntime();
    long processed = PROCESSED.sum();
    double recoveryMillis =
        failHalfway && RESUMED_AT_NANOS.get() != 0
            ? (RESUMED_AT_NANOS.get() - FAILED_AT_NANOS.get()) / 1e6
            : -1;
    return new Result(
        records,
        keys,
        parallelism,
        failHalfway,
        jobMillis,
        jobMillis > 0 ? records * 1000.0 / jobMillis : Double.NaN,
        durations.size(),
        failed,
        List.copyOf(failureReasons),
        median(durations),
        durations.stream().max(Comparator.naturalOrder()).orElse(0L),
        median(sizes),
        median(checkpointed),
        byKey.size(),
        duplicates,
        sumOfSums,
        List.copyOf(problems),
        processed,
        processed - records,
        recoveryMillis);
  }

  /** The middle of the first of the generator's {@code parallelism} contiguous index ranges. */
  public static long halfwayIndex(long records, int parallelism) {
    return records / parallelism / 2;
  }

  static long keyOf(Tuple2<Long, Long> record) {
    return record.f0;
  }

  private static long median(List<Long> values) {
    if (values.isEmpty()) {
      return 0;
    }
    List<Long> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    return sorted.get(sorted.size() / 2);
  }

  /** Record i = (i * 7919 % keys, i), through the Duraflow job's own key formula. */
  static final class KeyedRecords
      implements org.apache.flink.connector.datagen.source.GeneratorFunction<Long, Tuple2<Long, Long>> {
    private final long keys;

    KeyedRecords(long keys) {
      this.keys = keys;
    }

    @Override
    public Tuple2<Long, Long> map(Long index) {
      return Tuple2.of(StreamingKeyedSum.key(index, keys), index);
    }
  }

  /** Throws once, in attempt 0 of its subtask, at record {@code failAt}; passes records on otherwise. */
  static final class FailOnce extends RichMapFunction<Tuple2<Long, Long>, Tuple2<Long, Long>> {
    private final long failAt;
    private transient boolean firstAttempt;

    FailOnce(long failAt) {
      this.failAt = failAt;
    }

    @Override
    public void open(OpenContext context) {
      firstAttempt = getRuntimeContext().getTaskInfo().getAttemptNumber() == 0;
    }

    @Override
    public Tuple2<Long, Long> map(Tuple2<Long, Long> record) {
      if (firstAttempt && record.f1 == failAt) {
        FAILED_AT_NANOS.set(System.nanoTime());
        throw new IllegalStateException("injected failure at record " + failAt + " (benchmark failure run)");
      }
      return record;
    }
  }

  /**
   * (sum, count) per key in a value state, replaced on every record; emits (key, sum, count) once
   * the count reaches the key's expected count. Counts every record it processes and notes the
   * first one of a later attempt (the end of the recovery).
   */
  static final class SumPerKey
      extends KeyedProcessFunction<Long, Tuple2<Long, Long>, Tuple3<Long, Long, Long>> {
    private final long records;
    private final long keys;
    private final long inverse;
    private final long leastCount;
    private transient ValueState<Tuple2<Long, Long>> sumAndCount;
    private transient boolean laterAttempt;
    private transient boolean resumedNoted;

    SumPerKey(long records, long keys) {
      this.records = records;
      this.keys = keys;
      this.inverse = StreamingKeyedSum.inverseOfMultiplier(keys);
      this.leastCount = records / keys;
    }

    @Override
    public void open(OpenContext context) {
      sumAndCount = getRuntimeContext().getState(new ValueStateDescriptor<>("sum-and-count", RECORD));
      laterAttempt = getRuntimeContext().getTaskInfo().getAttemptNumber() > 0;
    }

    @Override
    public void processElement(
        Tuple2<Long, Long> record, Context context, Collector<Tuple3<Long, Long, Long>> out)
        throws IOException {
      PROCESSED.increment();
      if (laterAttempt && !resumedNoted) {
        resumedNoted = true;
        RESUMED_AT_NANOS.compareAndSet(0, System.nanoTime());
      }
      Tuple2<Long, Long> current = sumAndCount.value();
      long sum = (current == null ? 0 : current.f0) + record.f1;
      long count = (current == null ? 0 : current.f1) + 1;
      sumAndCount.update(Tuple2.of(sum, count));
      // Same test as the Duraflow job's: no key's count is complete below records / keys.
      if (count >= leastCount
          && count == StreamingKeyedSum.expectedCount(record.f0, records, keys, inverse)) {
        out.collect(Tuple3.of(record.f0, sum, count));
      }
    }
  }

  private static void deleteRecursively(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    }
  }

  /** Turns Flink's loggers down to ERROR when logback is the binding (see FlinkWordCount). */
  private static void quietFlinkLogging() {
    String[] names = {"org.apache.flink", "org.apache.pekko", "org.apache.zookeeper"};
    for (String name : names) {
      if (LoggerFactory.getLogger(name) instanceof ch.qos.logback.classic.Logger logger) {
        logger.setLevel(ch.qos.logback.classic.Level.ERROR);
      }
    }
    // After the failover the collect sink's coordinator logs "Trying to open gateway for unseen
    // checkpoint" with a stack trace through the RPC actor, though the result stays exact (the
    // fetcher retries); a job failure still reaches run() through the job's result.
    if (LoggerFactory.getLogger("org.apache.flink.runtime.rpc.pekko.FencedPekkoRpcActor")
        instanceof ch.qos.logback.classic.Logger logger) {
      logger.setLevel(ch.qos.logback.classic.Level.OFF);
    }
  }
}
