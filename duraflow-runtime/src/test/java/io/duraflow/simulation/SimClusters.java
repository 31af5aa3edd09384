package io.duraflow.simulation;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.examples.StreamingKeyedSum;
import io.duraflow.examples.WordCount;
import io.duraflow.jobstore.CollectedData;
import io.duraflow.jobstore.JobOutcome;
import io.duraflow.jobstore.JobResultEntry;
import io.duraflow.rpc.proto.SubmitJobRequest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * The clusters, jobs and checks of the whole-cluster simulation tests
 * ({@code ClusterSimulation*Test}): a batch and a streaming {@link SimCluster} of two JobManagers and
 * three TaskManagers, the two jobs they run, waits for a leader and for TaskManagers, and the exact
 * results each job must end with.
 */
final class SimClusters {
    static final String BATCH_JOB = "words";
    static final String STREAMING_JOB = "sums";
    static final int SPLITS = 16;

    private SimClusters() {}

    static SimCluster batchCluster(Path tempDir, long seed, Map<String, String> settings) throws IOException {
        Path root = Files.createDirectories(tempDir.resolve("batch-" + seed + "-" + settings.hashCode()));
        SimCluster cluster = new SimCluster(seed, root, settings);
        cluster.startJobManager("jm-1");
        cluster.startJobManager("jm-2");
        for (int i = 1; i <= 3; i++) {
            cluster.startTaskManager("tm-" + i);
        }
        return cluster;
    }

    static SimCluster streamingCluster(Path tempDir, long seed, Map<String, String> settings) throws IOException {
        Map<String, String> all = new java.util.HashMap<>(settings);
        Path root = Files.createDirectories(tempDir.resolve("streaming-" + seed + "-" + settings.hashCode()));
        all.put("execution.checkpointing.interval", "300ms");
        all.put("execution.checkpointing.dir", root.resolve("checkpoints").toUri().toString());
        SimCluster cluster = new SimCluster(seed, root, all);
        cluster.startJobManager("jm-1");
        cluster.startJobManager("jm-2");
        for (int i = 1; i <= 3; i++) {
            cluster.startTaskManager("tm-" + i);
        }
        return cluster;
    }

    static void finish(SimCluster cluster, String name, long seed) throws IOException {
        cluster.close();
        SimLog.LOG.info("{} seed {}: {} mails, {} calls, {} ms virtual", name, seed, cluster.scheduler().mailsRun(),
                cluster.network().calls(), cluster.scheduler().now());
        Files.createDirectories(Path.of("target", "simulation"));
        Files.write(Path.of("target", "simulation", name + "-" + seed + ".txt"), cluster.trace().lines());
    }

    static void awaitTaskManagers(SimCluster cluster, int count) {
        assertThat(cluster.runUntil(() -> cluster.leader() != null && cluster.leader().leadership() != null
                && cluster.leader().leadership().resourceManager.taskManagers().size() >= count, 10_000))
                .as("%d TaskManagers registered", count).isTrue();
    }

    static SimJobManager awaitLeader(SimCluster cluster) {
        assertThat(cluster.runUntil(() -> cluster.leader() != null && cluster.leader().leadership() != null
                && cluster.leader().leadership().ready, 10_000)).as("a leader is ready").isTrue();
        return cluster.leader();
    }

    static SubmitJobRequest batchJob() {
        return SubmitJobRequest.newBuilder().setJobId(BATCH_JOB).setJobClass(WordCount.class.getName())
                .putParams("words", "1000").putParams("splits", Integer.toString(SPLITS)).setParallelism(2).build();
    }

    static SubmitJobRequest streamingJob() {
        return SubmitJobRequest.newBuilder().setJobId(STREAMING_JOB).setJobClass(StreamingKeyedSum.class.getName())
                .putParams("records", "64").putParams("keys", "10").setParallelism(2)
                .putConfig("execution.runtime-mode", "streaming").build();
    }

    /** The batch job FINISHED, and its consumers counted every split exactly once. */
    static void assertBatchResult(SimCluster cluster, long seed) {
        JobResultEntry result = cluster.result(BATCH_JOB).orElseThrow();
        assertThat(result.state()).as("seed %d: %s", seed, result.failure()).isEqualTo(JobOutcome.FINISHED);
        long counted = result.collected().stream().filter(c -> c.name().equals(SimBatchTask.RESULT))
                .mapToLong(c -> SimBatchTask.count(c.data())).sum();
        assertThat(counted).as("seed %d: records counted (one per split)", seed).isEqualTo(SPLITS);
    }

    /** The streaming job FINISHED, and its sums saw every record of every split exactly once. */
    static void assertStreamingResult(SimCluster cluster, long seed) {
        JobResultEntry result = cluster.result(STREAMING_JOB).orElseThrow();
        assertThat(result.state()).as("seed %d: %s", seed, result.failure()).isEqualTo(JobOutcome.FINISHED);
        long count = 0;
        long sum = 0;
        for (CollectedData data : result.collected()) {
            long[] parsed = SimStreamTask.parse(data.data());
            count += parsed[0];
            sum += parsed[1];
        }
        var splits = cluster.invariants().splits(STREAMING_JOB);
        long expectedSum = 0;
        for (var split : splits) {
            for (int i = 0; i < SimStreamTask.RECORDS_PER_SPLIT; i++) {
                expectedSum += SimStreamTask.value(split, i);
            }
        }
        assertThat(count).as("seed %d: records summed", seed).isEqualTo((long) splits.size()
                * SimStreamTask.RECORDS_PER_SPLIT);
        assertThat(sum).as("seed %d: sum", seed).isEqualTo(expectedSum);
    }
}
