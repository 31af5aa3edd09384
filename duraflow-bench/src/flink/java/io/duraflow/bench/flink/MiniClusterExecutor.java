package io.duraflow.bench.flink;

import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;

import org.apache.flink.api.dag.Pipeline;
import org.apache.flink.client.deployment.executors.PipelineExecutorUtils;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.DeploymentOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.PipelineExecutor;
import org.apache.flink.core.execution.PipelineExecutorFactory;
import org.apache.flink.core.execution.PipelineExecutorServiceLoader;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterJobClient;
import org.apache.flink.streaming.api.graph.StreamGraph;

/**
 * Submits an environment's pipeline to a MiniCluster a benchmark started, the way Flink's own
 * {@code LocalExecutor} does, but leaves the cluster's lifetime to the benchmark (Flink's per-job
 * local cluster shuts itself down as soon as the job ends, which races with the collect sink's
 * result fetcher and only fires the shutdown without waiting for it). Set {@link
 * DeploymentOptions#TARGET} to {@link #NAME} and pass this as the executor service loader.
 */
final class MiniClusterExecutor
    implements PipelineExecutorServiceLoader, PipelineExecutorFactory, PipelineExecutor {

  static final String NAME = "duraflow-bench-local";

  private final MiniCluster cluster;

  MiniClusterExecutor(MiniCluster cluster) {
    this.cluster = cluster;
  }

  @Override
  public PipelineExecutorFactory getExecutorFactory(Configuration configuration) {
    return this;
  }

  @Override
  public Stream<String> getExecutorNames() {
    return Stream.of(NAME);
  }

  @Override
  public String getName() {
    return NAME;
  }

  @Override
  public boolean isCompatibleWith(Configuration configuration) {
    return NAME.equals(configuration.get(DeploymentOptions.TARGET));
  }

  @Override
  public PipelineExecutor getExecutor(Configuration configuration) {
    return this;
  }

  @Override
  public CompletableFuture<JobClient> execute(
      Pipeline pipeline, Configuration configuration, ClassLoader userCodeClassLoader)
      throws Exception {
    StreamGraph streamGraph = PipelineExecutorUtils.getStreamGraph(pipeline, configuration);
    streamGraph.serializeUserDefinedInstances();
    return cluster
        .submitJob(streamGraph)
        .thenApply(
            submitted ->
                new MiniClusterJobClient(
                    submitted.getJobID(),
                    cluster,
                    userCodeClassLoader,
                    MiniClusterJobClient.JobFinalizationBehavior.NOTHING));
  }
}
