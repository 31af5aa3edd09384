package io.duraflow.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.duraflow.examples.StreamingKeyedSum;
import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.rpc.proto.SubmitJobRequest;
import io.duraflow.rpc.proto.VertexStatus;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code duraflow status ID} of a running streaming job against real processes: every vertex
 * shows its records per second and busy / backpressured / idle time from the heartbeats.
 */
class StatusRatesIT {
    private static final Duration TIMEOUT = Duration.ofMinutes(2);

    @RegisterExtension
    static final LogsOnFailure LOGS = new LogsOnFailure();

    @TempDir
    Path tempDir;

    @Test
    void aRunningStreamingJobShowsRatesPerVertex() throws Exception {
        try (TestCluster cluster = TestCluster.start(LOGS.watch(tempDir.resolve("cluster")), 1, Map.of());
                ClusterClient client = new ClusterClient(cluster.address())) {
            String jobId = client.submit(SubmitJobRequest.newBuilder().setJobId("throttled-sum")
                    .setJobClass(StreamingKeyedSum.class.getName()).putParams("records", "0")
                    .putParams("rate", "2000").putParams("keys", "1000").setParallelism(1).build()).getJobId();

            JobStatus status = await("rates of every vertex").atMost(TIMEOUT).pollInterval(Duration.ofMillis(200))
                    .until(() -> client.status(jobId), s -> !s.getVerticesList().isEmpty()
                            && s.getVerticesList().stream().allMatch(VertexStatus::hasRates));

            for (VertexStatus vertex : status.getVerticesList()) {
                var rates = vertex.getRates();
                assertThat(rates.getSubtasks()).as("%s", vertex).isEqualTo(1);
                assertThat(rates.getBusyMsPerSecond() + rates.getBackpressuredMsPerSecond()
                        + rates.getIdleMsPerSecond()).as("%s", vertex).isBetween(999.0, 1001.0);
            }
            assertThat(status.getVertices(0).getRates().getRecordsOutPerSecond()).as("the throttled source: %s", status)
                    .isBetween(200.0, 20_000.0);
            assertThat(status.getVertices(0).getRates().getIdleMsPerSecond()).as("a throttled source mostly waits")
                    .isGreaterThan(300.0);

            Cli.Result shown = Cli.run(LOGS.watch(tempDir), Duration.ofSeconds(90), "--jobmanager", cluster.address(),
                    "status", jobId);

            assertThat(shown.exitCode()).as("%s", shown).isZero();
            assertThat(shown.stdout()).as("%s", shown).containsPattern(
                    "(?m)^    [\\d,]+ in/s, [\\d,]+ out/s, busy \\d+%, backpressured \\d+%, idle \\d+% \\(1 subtask\\)$");
            client.cancel(jobId);
            cluster.awaitResult(jobId, TIMEOUT);
        }
    }
}
