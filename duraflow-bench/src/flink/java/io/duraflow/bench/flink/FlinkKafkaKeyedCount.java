package io.duraflow.bench.flink;

import io.duraflow.bench.KafkaRun;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.DeploymentOptions;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.WebOptions;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.KafkaSourceBuilder;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.checkpoint.AbstractCheckpointStats;
import org.apache.flink.runtime.checkpoint.CheckpointStatsSnapshot;
import org.apache.flink.runtime.checkpoint.CheckpointStatsStatus;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.runtime.minicluster.RpcServiceSharing;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.slf4j.LoggerFactory;

/**
 * Flink 2.3's side of {@code KafkaBenchmark}, in a JVM of its own: the keyed count of Duraflow's
 * {@code KafkaKeyedCount}, operator for operator: Flink's {@link KafkaSource} (earliest offsets,
 * {@code read_committed}) -> {@code (key, 1)} -> keyBy key -> reduce (sum, in heap keyed state)
 * -> {@code key:count} -> Flink's {@link KafkaSink}, exactly once. One {@link MiniCluster} (one
 * TaskManager, one slot per subtask, slots shared as Flink does by default), streaming, a
 * checkpoint every second, {@code hashmap} state, no restarts, Flink's defaults otherwise.
 *
 * <pre>
 *   FlinkKafkaKeyedCount BOOTSTRAP PARALLELISM WORK_DIR
 * </pre>
 *
 * Reads commands from standard input, one a line, and answers on standard output (the protocol is
 * in {@code FlinkKafkaRuns}). Figures: the job's net run time, this JVM's CPU time, the checkpoint
 * statistics of the job's execution graph.
 */
public final class FlinkKafkaKeyedCount {
  /** The broker's default transaction.max.timeout.ms: Flink's default of 1 hour is over it. */
  static final Duration TRANSACTION_TIMEOUT = Duration.ofMinutes(15);
  static final Duration START_TIMEOUT = Duration.ofMinutes(2);

  private FlinkKafkaKeyedCount() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 3) {
      System.err.println("usage: FlinkKafkaKeyedCount BOOTSTRAP PARALLELISM WORK_DIR");
      System.exit(2);
    }
    String bootstrap = args[0];
    int parallelism = Integer.parseInt(args[1]);
    Path workDir = Path.of(args[2]);
    quietFlinkLogging();
    Configuration conf = configuration(parallelism, workDir);
    MiniCluster cluster = new MiniCluster(new MiniClusterConfiguration.Builder().setConfiguration(conf)
        .setNumTaskManagers(1).setNumSlotsPerTaskManager(parallelism)
        .setRpcServiceSharing(RpcServiceSharing.SHARED).build());
    int exit = 0;
    try {
      cluster.start();
      new Commands(cluster, conf, bootstrap).run();
    } catch (Exception e) {
      e.printStackTrace();
      exit = 1;
    } finally {
      cluster.closeAsync().get(60, TimeUnit.SECONDS);
    }
    System.out.flush();
    System.exit(exit);
  }

  private static Configuration configuration(int parallelism, Path workDir) throws java.io.IOException {
    Configuration conf = new Configuration();
    conf.set(RestOptions.ADDRESS, "127.0.0.1");
    conf.set(RestOptions.BIND_ADDRESS, "127.0.0.1");
    conf.set(RestOptions.BIND_PORT, "0");
    conf.set(DeploymentOptions.TARGET, MiniClusterExecutor.NAME);
    conf.set(DeploymentOptions.ATTACHED, true);
    conf.set(ExecutionOptions.RUNTIME_MODE, RuntimeExecutionMode.STREAMING);
    conf.set(CoreOptions.DEFAULT_PARALLELISM, parallelism);
    conf.set(StateBackendOptions.STATE_BACKEND, "hashmap");
    conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofSeconds(1));
    conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY,
        Files.createDirectories(workDir.resolve("checkpoints")).toUri().toString());
    conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
    conf.set(WebOptions.CHECKPOINTS_HISTORY_SIZE, 100_000);
    return conf;
  }

  /** The job: the same operators as Duraflow's {@code KafkaKeyedCount}. */
  static void build(StreamExecutionEnvironment env, String bootstrap, String input, String output, String prefix,
      boolean bounded) {
    KafkaSourceBuilder<String> source = KafkaSource.<String>builder().setBootstrapServers(bootstrap)
        .setTopics(input).setStartingOffsets(OffsetsInitializer.earliest())
        .setValueOnlyDeserializer(new SimpleStringSchema())
        .setProperty("isolation.level", "read_committed");
    if (bounded) {
      source.setBounded(OffsetsInitializer.latest());
    }
    KafkaSink<String> sink = KafkaSink.<String>builder().setBootstrapServers(bootstrap)
        .setRecordSerializer(KafkaRecordSerializationSchema.builder().setTopic(output)
            .setValueSerializationSchema(new SimpleStringSchema()).build())
        .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE).setTransactionalIdPrefix(prefix)
        .setProperty("transaction.timeout.ms", Long.toString(TRANSACTION_TIMEOUT.toMillis()))
        .build();
    env.fromSource(source.build(), WatermarkStrategy.noWatermarks(), "kafka " + input)
        .map(key -> Tuple2.of(key, 1L)).returns(Types.TUPLE(Types.STRING, Types.LONG))
        .keyBy(count -> count.f0, Types.STRING)
        .reduce((a, b) -> Tuple2.of(a.f0, a.f1 + b.f1))
        .map(count -> count.f0 + ":" + count.f1).returns(Types.STRING)
        .sinkTo(sink).name("kafka " + output);
  }

  /** The command loop; one job at a time. */
  private static final class Commands {
    private final MiniCluster cluster;
    private final Configuration conf;
    private final String bootstrap;
    /** The unbounded job running: its client and this JVM's CPU time and the time at its start. */
    private JobClient running;
    private long startCpuNanos;
    private long startMillis;

    Commands(MiniCluster cluster, Configuration conf, String bootstrap) {
      this.cluster = cluster;
      this.conf = conf;
      this.bootstrap = bootstrap;
    }

    void run() throws Exception {
      BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      for (String line; (line = in.readLine()) != null; ) {
        String[] f = line.trim().split(" ");
        switch (f[0]) {
          case "bounded" -> reply("done " + f[1] + " " + bounded(f[1], f[2], f[3], f[4]).line());
          case "start" -> {
            start(f[1], f[2], f[3], f[4]);
            reply("started " + f[1]);
          }
          case "cancel" -> reply("cancelled " + f[1] + " " + cancel().line());
          case "exit" -> {
            return;
          }
          default -> throw new IllegalArgumentException("unknown command '" + line + "'");
        }
      }
    }

    private static void reply(String reply) {
      System.out.println("@" + reply);
      System.out.flush();
    }

    private StreamExecutionEnvironment environment(String input, String output, String prefix, boolean bounded) {
      StreamExecutionEnvironment env = new StreamExecutionEnvironment(new MiniClusterExecutor(cluster), conf,
          FlinkKafkaKeyedCount.class.getClassLoader());
      build(env, bootstrap, input, output, prefix, bounded);
      return env;
    }

    private KafkaRun bounded(String jobName, String input, String output, String prefix) throws Exception {
      StreamExecutionEnvironment env = environment(input, output, prefix, true);
      long cpuBefore = processCpuNanos();
      JobClient client = env.executeAsync(jobName);
      JobExecutionResult result = client.getJobExecutionResult().get();
      long cpu = processCpuNanos() - cpuBefore;
      KafkaRun figures = figures(result.getNetRuntime(), cpu, checkpoints(client.getJobID()));
      env.close();
      return figures;
    }

    private void start(String jobName, String input, String output, String prefix) throws Exception {
      StreamExecutionEnvironment env = environment(input, output, prefix, false);
      startCpuNanos = processCpuNanos();
      startMillis = System.currentTimeMillis();
      running = env.executeAsync(jobName);
      long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
      while (true) {
        CheckpointStatsSnapshot stats = checkpoints(running.getJobID());
        if (stats != null && stats.getCounts().getNumberOfCompletedCheckpoints() > 0) {
          return;
        }
        if (running.getJobStatus().get().isGloballyTerminalState() || System.nanoTime() > deadline) {
          throw new IllegalStateException("Flink's " + jobName + " completed no checkpoint within "
              + START_TIMEOUT.toSeconds() + " s; it is " + running.getJobStatus().get());
        }
        Thread.sleep(100);
      }
    }

    private KafkaRun cancel() throws Exception {
      CheckpointStatsSnapshot stats = checkpoints(running.getJobID());
      long cpu = processCpuNanos() - startCpuNanos;
      long millis = System.currentTimeMillis() - startMillis;
      if (running.getJobStatus().get().isGloballyTerminalState()) {
        throw new IllegalStateException("Flink's job ended before it was cancelled: " + running.getJobStatus().get());
      }
      running.cancel().get(60, TimeUnit.SECONDS);
      running = null;
      return figures(millis, cpu, stats);
    }

    private CheckpointStatsSnapshot checkpoints(JobID job) throws Exception {
      return cluster.getExecutionGraph(job).get().getCheckpointStatsSnapshot();
    }
  }

  /** A run's figures from its checkpoint statistics (null: none yet). */
  private static KafkaRun figures(long millis, long cpuNanos, CheckpointStatsSnapshot stats) {
    int completed = 0;
    int failed = 0;
    long durations = 0;
    if (stats != null) {
      for (AbstractCheckpointStats c : stats.getHistory().getCheckpoints()) {
        if (c.getStatus() == CheckpointStatsStatus.COMPLETED) {
          completed++;
          durations += c.getEndToEndDuration();
        } else if (c.getStatus() == CheckpointStatsStatus.FAILED) {
          failed++;
        }
      }
    }
    return new KafkaRun(millis, cpuNanos, completed, failed, completed == 0 ? -1 : durations / completed);
  }

  /** CPU time of this JVM, all threads: the MiniCluster runs in it. */
  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  /** Flink's and Kafka's loggers down to ERROR when logback is the binding (see FlinkNexmark). */
  private static void quietFlinkLogging() {
    for (String name : new String[] {"org.apache.flink", "org.apache.pekko", "org.apache.kafka"}) {
      if (LoggerFactory.getLogger(name) instanceof ch.qos.logback.classic.Logger logger) {
        logger.setLevel(ch.qos.logback.classic.Level.ERROR);
      }
    }
    if (LoggerFactory.getLogger("org.apache.flink.runtime.rpc.pekko.FencedPekkoRpcActor")
        instanceof ch.qos.logback.classic.Logger logger) {
      logger.setLevel(ch.qos.logback.classic.Level.OFF);
    }
  }
}
