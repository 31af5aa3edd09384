package io.duraflow.bench.flink;

import java.util.Locale;
import java.util.concurrent.TimeUnit;

import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.DeploymentOptions;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.runtime.minicluster.RpcServiceSharing;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.CloseableIterator;
import org.slf4j.LoggerFactory;

/**
 * Apache Flink side of the WordCount benchmark; built only with the Maven profile {@code flink}.
 *
 * <p>Word {@code i} (for {@code i} in {@code [0, words)}) is {@code "w" + (i * 7919 % 100000)} in
 * 64-bit arithmetic. Since 7919 is coprime to 100000, every block of 100,000 consecutive indices
 * produces each of the 100,000 words exactly once; 10,000,000 words give 100,000 distinct words
 * with a count sum of 10,000,000.
 *
 * <p>The job is the textbook DataStream WordCount run in {@link RuntimeExecutionMode#BATCH}:
 * {@code fromSequence -> map(word, 1) -> keyBy(word) -> reduce(sum)}, with the per-word totals
 * collected back to this JVM through Flink's collect sink. A fresh {@link MiniCluster} (one
 * TaskManager, {@code parallelism} slots) is started for the call and shut down, and waited for,
 * before {@link #run} returns, so {@link Result#totalWallMillis()} covers start, job and shutdown.
 */
public final class FlinkWordCount {

  /** Words in the default run. */
  public static final long DEFAULT_WORDS = 10_000_000L;
  /** Parallelism of the default run. */
  public static final int DEFAULT_PARALLELISM = 2;

  private static final TypeInformation<Tuple2<String, Long>> WORD_COUNT =
      Types.TUPLE(Types.STRING, Types.LONG);

  private FlinkWordCount() {}

  /**
   * Outcome of one run.
   *
   * @param totalWallMillis wall time of the whole call: MiniCluster start, job, result collection
   *     and MiniCluster shutdown
   * @param jobMillis the job's net runtime as Flink reports it ({@link
   *     JobExecutionResult#getNetRuntime()})
   * @param distinctWords number of distinct words in the collected result
   * @param countSum sum of the collected counts (equals the number of input words)
   * @param recordsPerSecond input words per second of {@code jobMillis}
   */
  public record Result(
      long totalWallMillis,
      long jobMillis,
      long distinctWords,
      long countSum,
      double recordsPerSecond) {

    @Override
    public String toString() {
      return String.format(
          Locale.ROOT,
          "flink wordcount: totalWallMillis=%d jobMillis=%d distinctWords=%d countSum=%d"
              + " recordsPerSecond=%.0f",
          totalWallMillis,
          jobMillis,
          distinctWords,
          countSum,
          recordsPerSecond);
    }
  }

  /** Usage: {@code FlinkWordCount [words [parallelism]]}, defaults 10000000 and 2. */
  public static void main(String[] args) throws Exception {
    long words = args.length > 0 ? Long.parseLong(args[0].replace("_", "")) : DEFAULT_WORDS;
    int parallelism = args.length > 1 ? Integer.parseInt(args[1]) : DEFAULT_PARALLELISM;
    System.out.println(run(words, parallelism));
  }

  /** Runs WordCount over {@code words} generated words on a MiniCluster started for this call. */
  public static Result run(long words, int parallelism) throws Exception {
    if (words < 1) {
      throw new IllegalArgumentException("words must be >= 1: " + words);
    }
    if (parallelism < 1) {
      throw new IllegalArgumentException("parallelism must be >= 1: " + parallelism);
    }
    quietFlinkLogging();

    long start = System.nanoTime();
    Configuration conf = new Configuration();
    conf.set(RestOptions.BIND_PORT, "0"); // any free port, as Flink's local environment does
    conf.set(DeploymentOptions.TARGET, MiniClusterExecutor.NAME);
    conf.set(DeploymentOptions.ATTACHED, true);
    conf.set(ExecutionOptions.RUNTIME_MODE, RuntimeExecutionMode.BATCH);
    conf.set(CoreOptions.DEFAULT_PARALLELISM, parallelism);

    JobExecutionResult jobResult;
    long distinct = 0;
    long sum = 0;
    // One TaskManager with one slot per parallel subtask, like createLocalEnvironment(parallelism).
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

      StreamExecutionEnvironment env =
          new StreamExecutionEnvironment(
              new MiniClusterExecutor(cluster), conf, FlinkWordCount.class.getClassLoader());
      env.setRuntimeMode(RuntimeExecutionMode.BATCH);
      env.setParallelism(parallelism);

      DataStream<Tuple2<String, Long>> counts =
          env.fromSequence(0, words - 1)
              .map(FlinkWordCount::wordOf)
              .returns(WORD_COUNT)
              .name("words")
              .keyBy(FlinkWordCount::wordKey, Types.STRING)
              .reduce(FlinkWordCount::add)
              .name("count");

      DataStream.Collector<Tuple2<String, Long>> collector = new DataStream.Collector<>();
      counts.collectAsync(collector);

      JobClient client = env.executeAsync("flink-wordcount");
      CloseableIterator<Tuple2<String, Long>> it = collector.getOutput();
      try {
        while (it.hasNext()) {
          Tuple2<String, Long> wc = it.next();
          distinct++;
          sum += wc.f1;
        }
      } finally {
        it.close();
      }
      jobResult = client.getJobExecutionResult().get();
      env.close();
    } finally {
      // Shut the cluster down and wait for it, so the shutdown is inside totalWallMillis.
      cluster.closeAsync().get(60, TimeUnit.SECONDS);
    }
    long totalMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    long jobMillis = jobResult.getNetRuntime();
    double perSecond = jobMillis > 0 ? words * 1000.0 / jobMillis : Double.NaN;
    return new Result(totalMillis, jobMillis, distinct, sum, perSecond);
  }

  static Tuple2<String, Long> wordOf(Long i) {
    return Tuple2.of("w" + (i * 7919L % 100_000L), 1L);
  }

  static String wordKey(Tuple2<String, Long> wc) {
    return wc.f0;
  }

  static Tuple2<String, Long> add(Tuple2<String, Long> a, Tuple2<String, Long> b) {
    return Tuple2.of(a.f0, a.f1 + b.f1);
  }

  /**
   * Turns Flink's (and its RPC system's) loggers down to ERROR when logback is the SLF4J binding,
   * as it is on this module's classpath through duraflow-cli. Without a logback.xml logback would
   * print every DEBUG line Flink emits.
   */
  private static void quietFlinkLogging() {
    String[] names = {"org.apache.flink", "org.apache.pekko", "org.apache.zookeeper"};
    for (String name : names) {
      if (LoggerFactory.getLogger(name) instanceof ch.qos.logback.classic.Logger logger) {
        logger.setLevel(ch.qos.logback.classic.Level.ERROR);
      }
    }
  }
}
