package io.duraflow.bench.flink;

import io.duraflow.bench.LargeStateRecords;
import io.duraflow.bench.LargeStateRecords.Mode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Stream;

import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.DeploymentOptions;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.runtime.minicluster.RpcServiceSharing;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.util.Collector;

/**
 * Apache Flink side of the savepoint-restore benchmark ({@code StateBackendBenchmark}): one
 * MiniCluster (one TaskManager, a slot per subtask) with Flink 2.3's RocksDB backend runs the job
 * of {@link LargeStateRecords} twice.
 *
 * <ol>
 *   <li>Build: every key written once (about {@code stateBytes} of values), then idle records;
 *       once every keyed subtask saw idle records from every reader, a savepoint in Flink's
 *       canonical format ({@link SavepointFormatType#CANONICAL}) is taken, then the job cancelled.
 *   <li>Restore: the same job (same uids) submitted with {@code execution.state-recovery.path} =
 *       the savepoint (restore mode NO_CLAIM, Flink's default), whose keyed function checks
 *       records. Restore time: from just before the submission ({@code executeAsync}) to the
 *       moment the last keyed subtask processed its first record (each subtask's keyed state is
 *       loaded into RocksDB before its first record). Then it checks at least {@code keys} values
 *       against {@link LargeStateRecords#value} and is cancelled.
 * </ol>
 *
 * <p>Periodic checkpoints are off (interval 10 min) so they do not compete with the build; the
 * RocksDB backend keeps its defaults (managed memory of the MiniCluster, local directory in the
 * work directory). Counters are static: the MiniCluster runs the tasks in this JVM.
 */
public final class FlinkLargeState {
  private static final TypeInformation<Tuple2<Long, Long>> RECORD = Types.TUPLE(Types.LONG, Types.LONG);
  /** Each of the generator's contiguous ranges holds this many indexes; mapped to strides. */
  private static final long RANGE = 1L << 40;

  private static final LongAdder WRITTEN = new LongAdder();
  private static final LongAdder CHECKED = new LongAdder();
  private static final LongAdder MISMATCHED = new LongAdder();
  private static final LongAdder MISSING = new LongAdder();
  private static final LongAdder BUILT_SUBTASKS = new LongAdder();
  private static volatile AtomicLongArray firstRecordNanos = new AtomicLongArray(1);

  private FlinkLargeState() {}

  /** The figures of one build, savepoint and restore. */
  public record Result(
      long keys,
      int valueBytes,
      long buildMillis,
      long savepointMillis,
      long savepointBytes,
      double restoreMillis,
      double firstSubtaskMillis,
      long checked,
      long mismatched,
      long missing,
      long written) {
    public boolean exact() {
      return written == keys && checked >= keys && mismatched == 0 && missing == 0;
    }
  }

  public static Result run(long stateBytes, int valueBytes, int parallelism, Path workDir, java.util.function.Consumer<String> progress)
      throws Exception {
    long keys = LargeStateRecords.keysFor(stateBytes, valueBytes);
    Configuration conf = new Configuration();
    conf.set(RestOptions.ADDRESS, "127.0.0.1");
    conf.set(RestOptions.BIND_ADDRESS, "127.0.0.1");
    conf.set(RestOptions.BIND_PORT, "0");
    conf.set(DeploymentOptions.TARGET, MiniClusterExecutor.NAME);
    conf.set(DeploymentOptions.ATTACHED, true);
    conf.set(ExecutionOptions.RUNTIME_MODE, RuntimeExecutionMode.STREAMING);
    conf.set(CoreOptions.DEFAULT_PARALLELISM, parallelism);
    conf.set(StateBackendOptions.STATE_BACKEND, "rocksdb");
    conf.setString("state.backend.rocksdb.localdir", workDir.resolve("rocksdb").toString());
    conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMinutes(10));
    conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, workDir.resolve("checkpoints").toUri().toString());
    conf.set(CheckpointingOptions.FS_SMALL_FILE_THRESHOLD, org.apache.flink.configuration.MemorySize.ZERO);

    MiniCluster cluster =
        new MiniCluster(
            new MiniClusterConfiguration.Builder()
                .setConfiguration(conf)
                .setNumTaskManagers(1)
                .setNumSlotsPerTaskManager(parallelism)
                .setRpcServiceSharing(RpcServiceSharing.SHARED)
                .build());
    try {
      cluster.start();
      reset(parallelism);
      long buildStart = System.nanoTime();
      JobClient build = submit(cluster, conf, keys, valueBytes, parallelism, Mode.BUILD);
      while (BUILT_SUBTASKS.sum() < parallelism) {
        if (build.getJobStatus().get().isTerminalState()) {
          throw new IllegalStateException("Flink build job ended " + build.getJobStatus().get());
        }
        Thread.sleep(100);
      }
      long buildMillis = (System.nanoTime() - buildStart) / 1_000_000;
      long written = WRITTEN.sum();
      progress.accept(String.format(Locale.ROOT, "built %,d keys (%,d written) in %,d ms; taking a canonical savepoint",
          keys, written, buildMillis));
      long savepointStart = System.nanoTime();
      String savepoint =
          build.triggerSavepoint(workDir.resolve("savepoints").toUri().toString(), SavepointFormatType.CANONICAL)
              .get(30, TimeUnit.MINUTES);
      long savepointMillis = (System.nanoTime() - savepointStart) / 1_000_000;
      build.cancel().get(5, TimeUnit.MINUTES);
      awaitTerminal(build);
      long savepointBytes = bytesUnder(Path.of(java.net.URI.create(savepoint)));
      progress.accept(String.format(Locale.ROOT, "savepoint %s: %,.1f MB in %,d ms; restoring", savepoint,
          savepointBytes / 1e6, savepointMillis));

      reset(parallelism);
      Configuration restoreConf = new Configuration(conf);
      restoreConf.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
      long restoreStart = System.nanoTime();
      JobClient restored = submit(cluster, restoreConf, keys, valueBytes, parallelism, Mode.RESTORE);
      while (CHECKED.sum() < keys) {
        if (restored.getJobStatus().get().isTerminalState()) {
          throw new IllegalStateException("Flink restored job ended " + restored.getJobStatus().get());
        }
        Thread.sleep(50);
      }
      restored.cancel().get(5, TimeUnit.MINUTES);
      awaitTerminal(restored);
      long[] first = new long[parallelism];
      for (int i = 0; i < parallelism; i++) {
        first[i] = firstRecordNanos.get(i);
      }
      long last = Arrays.stream(first).max().orElse(0);
      long earliest = Arrays.stream(first).min().orElse(0);
      return new Result(keys, valueBytes, buildMillis, savepointMillis, savepointBytes,
          (last - restoreStart) / 1e6, (earliest - restoreStart) / 1e6, CHECKED.sum(), MISMATCHED.sum(),
          MISSING.sum(), written);
    } finally {
      cluster.closeAsync().get(60, TimeUnit.SECONDS);
    }
  }

  private static void reset(int parallelism) {
    WRITTEN.reset();
    CHECKED.reset();
    MISMATCHED.reset();
    MISSING.reset();
    BUILT_SUBTASKS.reset();
    firstRecordNanos = new AtomicLongArray(parallelism);
  }

  private static JobClient submit(MiniCluster cluster, Configuration conf, long keys, int valueBytes, int parallelism,
      Mode mode) throws Exception {
    StreamExecutionEnvironment env =
        new StreamExecutionEnvironment(new MiniClusterExecutor(cluster), conf, FlinkLargeState.class.getClassLoader());
    DataGeneratorSource<Tuple2<Long, Long>> source =
        new DataGeneratorSource<>(new Generator(keys, parallelism, mode), RANGE * parallelism,
            RateLimiterStrategy.noOp(), RECORD);
    env.fromSource(source, WatermarkStrategy.noWatermarks(), "generate large state")
        .uid("generate-large-state")
        .keyBy(record -> record.f0, Types.LONG)
        .process(new StoreOrCheck(valueBytes, parallelism))
        .returns(Types.LONG)
        .name("store or check")
        .uid("store-or-check")
        .sinkTo(new DiscardingSink<>())
        .name("discard");
    return env.executeAsync("flink-large-state-" + mode.name().toLowerCase(Locale.ROOT));
  }

  private static void awaitTerminal(JobClient client) throws Exception {
    while (!client.getJobStatus().get().isTerminalState()) {
      Thread.sleep(50);
    }
  }

  private static long bytesUnder(Path dir) throws IOException {
    try (Stream<Path> paths = Files.walk(dir)) {
      return paths.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
    }
  }

  /** Index i of reader range r = i / RANGE, offset o: logical index g = o * parallelism + r, as Duraflow's strides. */
  static final class Generator implements GeneratorFunction<Long, Tuple2<Long, Long>> {
    private final long keys;
    private final int parallelism;
    private final Mode mode;

    Generator(long keys, int parallelism, Mode mode) {
      this.keys = keys;
      this.parallelism = parallelism;
      this.mode = mode;
    }

    @Override
    public Tuple2<Long, Long> map(Long index) {
      long g = (index % RANGE) * parallelism + index / RANGE;
      long tag = LargeStateRecords.tag(g, keys, parallelism, mode);
      return Tuple2.of(LargeStateRecords.key(g, keys), tag);
    }
  }

  /** Writes a key's value, checks it, or notes idle records (see {@link LargeStateRecords}). */
  static final class StoreOrCheck extends KeyedProcessFunction<Long, Tuple2<Long, Long>, Long> {
    private final int valueBytes;
    private final int parallelism;
    private transient ValueState<byte[]> value;
    private transient int subtask;
    private transient boolean firstSeen;
    private transient boolean[] idleFrom;
    private transient int idleReaders;

    StoreOrCheck(int valueBytes, int parallelism) {
      this.valueBytes = valueBytes;
      this.parallelism = parallelism;
    }

    @Override
    public void open(OpenContext context) {
      value = getRuntimeContext().getState(new ValueStateDescriptor<>("value", PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO));
      subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
      idleFrom = new boolean[parallelism];
    }

    @Override
    public void processElement(Tuple2<Long, Long> record, Context context, Collector<Long> out) throws IOException {
      if (!firstSeen) {
        firstSeen = true;
        firstRecordNanos.compareAndSet(subtask, 0, System.nanoTime());
      }
      long tag = record.f1;
      if (tag == LargeStateRecords.WRITE) {
        value.update(LargeStateRecords.value(record.f0, valueBytes));
        WRITTEN.increment();
      } else if (tag == LargeStateRecords.CHECK) {
        byte[] stored = value.value();
        if (stored == null) {
          MISSING.increment();
        } else if (!LargeStateRecords.matches(record.f0, stored, valueBytes)) {
          MISMATCHED.increment();
        }
        CHECKED.increment();
      } else {
        int reader = (int) (tag - LargeStateRecords.IDLE);
        if (!idleFrom[reader]) {
          idleFrom[reader] = true;
          if (++idleReaders == parallelism) {
            BUILT_SUBTASKS.increment();
          }
        }
      }
    }
  }
}
