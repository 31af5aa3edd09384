package io.duraflow.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.duraflow.examples.StreamingKeyedSum;
import io.duraflow.examples.WordCount;
import io.duraflow.rpc.proto.SubmitJobRequest;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code duraflow checkpoints ID} against real processes: an endless streaming job's table, then
 * the one-line errors for an unknown job and for jobs that ended (their JobMaster is gone).
 */
class CheckpointsCommandIT {
    private static final Duration CLI_TIMEOUT = Duration.ofSeconds(90);
    private static final Duration JOB_TIMEOUT = Duration.ofMinutes(2);

    @RegisterExtension
    static final LogsOnFailure LOGS = new LogsOnFailure();

    @TempDir
    Path tempDir;

    private Cli.Result duraflow(String... args) throws IOException, InterruptedException {
        return Cli.run(LOGS.watch(tempDir), CLI_TIMEOUT, args);
    }

    private static void assertOneLineError(Cli.Result result, String expected) {
        assertThat(result.exitCode()).as("exit code of %s", result).isNotZero();
        assertThat(result.stderrLines()).as("stderr of %s", result).containsExactly("duraflow: " + expected);
    }

    @Test
    void aRunningStreamingJobShowsItsCheckpointsAndEndedOrUnknownJobsAreOneLineErrors() throws Exception {
        try (TestCluster cluster = TestCluster.start(LOGS.watch(tempDir.resolve("cluster")), 1, Map.of());
                ClusterClient client = new ClusterClient(cluster.address())) {
            String streaming = client.submit(SubmitJobRequest.newBuilder().setJobId("endless-sum")
                    .setJobClass(StreamingKeyedSum.class.getName()).putParams("records", "0")
                    .putParams("rate", "2000").putParams("keys", "1000").setParallelism(1)
                    .putConfig("execution.checkpointing.interval", "300ms")
                    .putConfig("execution.checkpointing.dir", tempDir.resolve("checkpoints").toString())
                    .build()).getJobId();
            await("two completed checkpoints").atMost(JOB_TIMEOUT).pollInterval(Duration.ofMillis(200))
                    .until(() -> client.checkpoints(streaming).getCompleted() >= 2);

            Cli.Result table = duraflow("--jobmanager", cluster.address(), "checkpoints", streaming);

            assertThat(table.exitCode()).as("%s", table).isZero();
            assertThat(table.stdout().lines().toList()).as("%s", table).satisfies(lines -> {
                assertThat(lines.get(0)).startsWith("Job endless-sum: checkpoint interval 300 ms, ");
                assertThat(lines.get(1)).startsWith("  latest completed: ").contains("_metadata");
                assertThat(lines.get(2)).isEqualTo("  restored from:    nothing (started from empty state)");
                assertThat(lines.get(3)).startsWith("ID     KIND       STATUS");
                assertThat(lines.subList(4, lines.size())).anyMatch(line -> line.matches(
                        "\\d+ +CHECKPOINT completed +\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d .*"));
            });

            assertOneLineError(duraflow("--jobmanager", cluster.address(), "checkpoints", "no-such-job"),
                    "no job with id 'no-such-job'; 'duraflow list' shows the jobs");

            client.cancel(streaming);
            cluster.awaitResult(streaming, JOB_TIMEOUT);
            assertOneLineError(duraflow("--jobmanager", cluster.address(), "checkpoints", streaming),
                    "job endless-sum has ended (CANCELED): its checkpoint statistics ended with it;"
                            + " 'duraflow result endless-sum' shows its result");

            String batch = client.submit(SubmitJobRequest.newBuilder().setJobId("words")
                    .setJobClass(WordCount.class.getName()).putParams("words", "100").build()).getJobId();
            cluster.awaitResult(batch, JOB_TIMEOUT);
            assertOneLineError(duraflow("--jobmanager", cluster.address(), "checkpoints", batch),
                    "job words has ended (FINISHED): its checkpoint statistics ended with it;"
                            + " 'duraflow result words' shows its result");
        }
    }
}
