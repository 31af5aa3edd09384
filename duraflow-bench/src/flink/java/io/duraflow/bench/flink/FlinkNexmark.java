package io.duraflow.bench.flink;

import io.duraflow.bench.NexmarkBenchmark;
import io.duraflow.bench.NexmarkDigest;
import io.duraflow.bench.NexmarkRun;
import java.io.IOException;
import java.io.Writer;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.DeploymentOptions;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.WebOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.checkpoint.AbstractCheckpointStats;
import org.apache.flink.runtime.checkpoint.CheckpointStatsSnapshot;
import org.apache.flink.runtime.checkpoint.CheckpointStatsStatus;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.runtime.minicluster.RpcServiceSharing;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.slf4j.LoggerFactory;

/**
 * Flink 2.3's side of {@link NexmarkBenchmark}, run in a JVM of its own: Flink's RocksDB backend
 * brings its own {@code org.rocksdb} (frocksdbjni), which must not share a class path with
 * Duraflow's rocksdbjni, and a JVM of its own also makes its CPU time Flink's alone. It runs the
 * queries one after the other on one {@link MiniCluster} (one TaskManager, one slot per subtask,
 * slots shared as Flink does by default), streaming, a checkpoint every second, heap ({@code
 * hashmap}) or RocksDB state (incremental checkpoints), no restarts, Flink's defaults otherwise
 * (no object reuse unless asked), and writes each run's figures as properties ({@link
 * NexmarkRun#put}).
 *
 * <pre>
 *   FlinkNexmark heap|rocksdb QUERIES SETTINGS WARMUP_SETTINGS|none PARALLELISM OBJECT_REUSE WORK_DIR OUT_FILE
 * </pre>
 *
 * <p>SETTINGS and WARMUP_SETTINGS are {@link NexmarkBenchmark.Settings#argument()}; with the
 * latter, every query first runs over its events (figures under {@code warmup-<query>}). The results go to a sink that
 * digests them ({@link DigestSink}); the CPU time is this JVM's from submission to the job's end.
 */
public final class FlinkNexmark {
  private FlinkNexmark() {}

  /** The digests of the sink subtasks of the running job that saw the end of their input. */
  private static final List<NexmarkDigest.Accumulator> FINISHED = new java.util.ArrayList<>();

  public static void main(String[] args) throws Exception {
    if (args.length != 8) {
      System.err.println("usage: FlinkNexmark heap|rocksdb QUERIES SETTINGS WARMUP_SETTINGS|none PARALLELISM"
          + " OBJECT_REUSE WORK_DIR OUT_FILE");
      System.exit(2);
    }
    boolean rocksDb = args[0].equals("rocksdb");
    List<String> queries = List.of(args[1].split(","));
    NexmarkBenchmark.Settings settings = NexmarkBenchmark.Settings.parse(args[2]);
    NexmarkBenchmark.Settings warmup = args[3].equals("none") ? null : NexmarkBenchmark.Settings.parse(args[3]);
    int parallelism = Integer.parseInt(args[4]);
    boolean objectReuse = Boolean.parseBoolean(args[5]);
    Path workDir = Path.of(args[6]);
    Path out = Path.of(args[7]);
    quietFlinkLogging();
    Configuration conf = configuration(rocksDb, parallelism, objectReuse, workDir);
    MiniCluster cluster = new MiniCluster(new MiniClusterConfiguration.Builder().setConfiguration(conf)
        .setNumTaskManagers(1).setNumSlotsPerTaskManager(parallelism)
        .setRpcServiceSharing(RpcServiceSharing.SHARED).build());
    Properties figures = new Properties();
    try {
      cluster.start();
      if (warmup != null) {
        for (String query : queries) {
          run(cluster, conf, query, warmup, parallelism).renamed(NexmarkBenchmark.WARMUP + query).put(figures);
        }
      }
      for (String query : queries) {
        run(cluster, conf, query, settings, parallelism).put(figures);
      }
    } finally {
      cluster.closeAsync().get(60, TimeUnit.SECONDS);
    }
    if (rocksDb) {
      figures.put("rocksdb.classes", FlinkRocksDbRuns.rocksDbClasses());
    }
    try (Writer writer = Files.newBufferedWriter(out, StandardCharsets.UTF_8)) {
      figures.store(writer, "FlinkNexmark " + String.join(" ", args));
    }
  }

  private static Configuration configuration(boolean rocksDb, int parallelism, boolean objectReuse, Path workDir)
      throws IOException {
    Configuration conf = new Configuration();
    conf.set(RestOptions.ADDRESS, "127.0.0.1");
    conf.set(RestOptions.BIND_ADDRESS, "127.0.0.1");
    conf.set(RestOptions.BIND_PORT, "0");
    conf.set(DeploymentOptions.TARGET, MiniClusterExecutor.NAME);
    conf.set(DeploymentOptions.ATTACHED, true);
    conf.set(ExecutionOptions.RUNTIME_MODE, RuntimeExecutionMode.STREAMING);
    conf.set(CoreOptions.DEFAULT_PARALLELISM, parallelism);
    conf.set(PipelineOptions.OBJECT_REUSE, objectReuse);
    conf.set(StateBackendOptions.STATE_BACKEND, rocksDb ? "rocksdb" : "hashmap");
    if (rocksDb) {
      conf.setString("execution.checkpointing.incremental", "true");
      conf.setString("state.backend.rocksdb.localdir", workDir.resolve("rocksdb").toString());
    }
    conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, java.time.Duration.ofSeconds(1));
    conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY,
        Files.createDirectories(workDir.resolve("checkpoints")).toUri().toString());
    conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
    conf.set(WebOptions.CHECKPOINTS_HISTORY_SIZE, 100_000);
    return conf;
  }

  private static NexmarkRun run(MiniCluster cluster, Configuration conf, String query,
      NexmarkBenchmark.Settings settings, int parallelism) throws Exception {
    synchronized (FINISHED) {
      FINISHED.clear();
    }
    StreamExecutionEnvironment env =
        new StreamExecutionEnvironment(new MiniClusterExecutor(cluster), conf, FlinkNexmark.class.getClassLoader());
    @SuppressWarnings("unchecked")
    DataStream<Object> results = (DataStream<Object>) FlinkNexmarkQueries.build(env, query, settings, parallelism);
    results.sinkTo(new DigestSink(query)).name("Digest results");
    long cpuBefore = processCpuNanos();
    long started = System.currentTimeMillis();
    JobClient client = env.executeAsync("nexmark-" + query);
    JobExecutionResult result = client.getJobExecutionResult().get();
    long cpu = processCpuNanos() - cpuBefore;
    CheckpointStatsSnapshot checkpoints = cluster.getExecutionGraph(client.getJobID()).get()
        .getCheckpointStatsSnapshot();
    env.close();
    int completed = 0;
    int failed = 0;
    long durations = 0;
    for (AbstractCheckpointStats stats : checkpoints.getHistory().getCheckpoints()) {
      if (stats.getStatus() == CheckpointStatsStatus.COMPLETED) {
        completed++;
        durations += stats.getEndToEndDuration();
      } else if (stats.getStatus() == CheckpointStatsStatus.FAILED) {
        failed++;
      }
    }
    NexmarkDigest.Digest digest = NexmarkDigest.Digest.EMPTY;
    long first = Long.MAX_VALUE;
    long last = 0;
    synchronized (FINISHED) {
      if (FINISHED.size() != parallelism) {
        throw new IllegalStateException("Flink's " + query + ": " + FINISHED.size()
            + " sink subtasks saw the end of their input, not " + parallelism);
      }
      for (NexmarkDigest.Accumulator accumulator : FINISHED) {
        digest = digest.plus(accumulator.digest());
        if (accumulator.firstResultAtMs() > 0) {
          first = Math.min(first, accumulator.firstResultAtMs());
          last = Math.max(last, accumulator.lastResultAtMs());
        }
      }
    }
    return new NexmarkRun(query, settings.events(), result.getNetRuntime(), cpu, completed, failed,
        completed == 0 ? -1 : durations / completed, digest.results(), digest.hashSum(),
        first == Long.MAX_VALUE ? -1 : first - started, first == Long.MAX_VALUE ? -1 : last - started);
  }

  /** CPU time of this JVM, all threads: the MiniCluster runs in it. */
  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  /**
   * Digests its subtask's results ({@link NexmarkDigest.Accumulator}) and hands them to {@link
   * #FINISHED} at the end of its input; works because the MiniCluster runs in this JVM and the
   * job's classes come from the application class loader.
   */
  static final class DigestSink implements Sink<Object> {
    private final String query;

    DigestSink(String query) {
      this.query = query;
    }

    @Override
    public SinkWriter<Object> createWriter(WriterInitContext context) {
      NexmarkDigest.Accumulator accumulator = new NexmarkDigest.Accumulator(query);
      return new SinkWriter<>() {
        @Override
        public void write(Object result, Context context) {
          if (result instanceof Tuple2<?, ?> pair) {
            accumulator.addPair((Long) pair.f0, (Long) pair.f1);
          } else {
            accumulator.add(result);
          }
        }

        @Override
        public void flush(boolean endOfInput) {
          if (endOfInput) {
            synchronized (FINISHED) {
              FINISHED.add(accumulator);
            }
          }
        }

        @Override
        public void close() {}
      };
    }
  }

  /** Turns Flink's loggers down to ERROR when logback is the binding (see FlinkWordCount). */
  private static void quietFlinkLogging() {
    for (String name : new String[] {"org.apache.flink", "org.apache.pekko", "org.apache.zookeeper"}) {
      if (LoggerFactory.getLogger(name) instanceof ch.qos.logback.classic.Logger logger) {
        logger.setLevel(ch.qos.logback.classic.Level.ERROR);
      }
    }
    // When a bounded job's last tasks finish, the source coordinator logs "Trying to open gateway
    // for unseen checkpoint" with a stack trace for a checkpoint aborted meanwhile; harmless (see
    // FlinkStreamingKeyedSum), and a job failure still reaches run() through the job's result.
    if (LoggerFactory.getLogger("org.apache.flink.runtime.rpc.pekko.FencedPekkoRpcActor")
        instanceof ch.qos.logback.classic.Logger logger) {
      logger.setLevel(ch.qos.logback.classic.Level.OFF);
    }
  }
}
