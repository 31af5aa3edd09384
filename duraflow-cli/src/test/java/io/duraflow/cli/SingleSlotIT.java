package io.duraflow.cli;

import static io.duraflow.cli.ExactResults.assertSameEntries;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.duraflow.examples.StreamingKeyedSum;
import io.duraflow.examples.WordCount;
import io.duraflow.api.types.Tuple3;
import io.duraflow.rpc.proto.SubmitJobRequest;
import io.duraflow.rpc.proto.JobResult;
import io.duraflow.rpc.proto.JobState;
import io.duraflow.rpc.proto.JobStatus;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * One TaskManager with one slot, restarts switched off: every task of a batch job runs in the same
 * slot, each deployed the moment the one before reported FINISHED, and a streaming job of two
 * stages runs both in it (slot sharing). Nothing fails, so every job must finish without a single
 * restart; a streaming job that needs more slots than there are says so in its status.
 */
class SingleSlotIT {
    private static final int JOBS = 20;

    @RegisterExtension
    static final LogsOnFailure LOGS = new LogsOnFailure();

    @TempDir
    static Path tempDir;

    private static TestCluster cluster;

    @BeforeAll
    static void startCluster() throws IOException {
        cluster = TestCluster.start(LOGS.watch(tempDir.resolve("cluster")), 1, Map.of("taskmanager.slots", "1",
                "restart-strategy.type", "none"));
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void consecutiveTasksReuseTheSlotWithoutRestarts() {
        long words = 100_000;
        long distinct = 1_000;
        Map<String, String> params = Map.of("words", Long.toString(words), "distinct", Long.toString(distinct));
        Map<String, Long> expected = new HashMap<>();
        for (long i = 0; i < words; i++) {
            expected.merge(WordCount.word(i, distinct), 1L, Long::sum);
        }
        for (int job = 0; job < JOBS; job++) {
            String jobId = cluster.submit(WordCount.class.getName(), params, 1);
            JobResult result = cluster.awaitResult(jobId, Duration.ofSeconds(30));
            JobStatus status = result.getStatus();

            assertThat(status.getState()).as("job %d of %d (%s), failure '%s'", job + 1, JOBS, jobId,
                    status.getFailure()).isEqualTo(JobState.JOB_FINISHED);
            assertThat(status.getRestarts()).as("restarts of job %s", jobId).isZero();
            assertSameEntries("word counts of job " + jobId, ExactResults.<String, Long>toMap(
                    TestCluster.decode(result, WordCount.class.getName(), params, 1).get(WordCount.RESULT)), expected);
        }
    }

    @Test
    void aStreamingJobOfTwoStagesSharesTheSlotAndOneThatNeedsMoreSlotsSaysWhatItWaitsFor() throws Exception {
        long records = 10_000;
        long keys = 100;
        Map<String, String> params = Map.of("records", Long.toString(records), "keys", Long.toString(keys));
        try (ClusterClient client = new ClusterClient(cluster.address())) {
            String jobId = client.submit(SubmitJobRequest.newBuilder().setJobId("shared-slot")
                    .setJobClass(StreamingKeyedSum.class.getName()).putAllParams(params).setParallelism(1)
                    .putConfig("execution.runtime-mode", "streaming")
                    // a bounded streaming job ends after a checkpoint that follows the end of its input
                    .putConfig("execution.checkpointing.interval", "200ms")
                    .putConfig("execution.checkpointing.dir", tempDir.resolve("checkpoints").toUri().toString())
                    .build()).getJobId();
            JobResult result = cluster.awaitResult(jobId, Duration.ofSeconds(60));
            assertThat(result.getStatus().getState()).as("%s", result.getStatus().getFailure())
                    .isEqualTo(JobState.JOB_FINISHED);
            @SuppressWarnings("unchecked")
            List<Tuple3<Long, Long, Long>> sums = (List<Tuple3<Long, Long, Long>>) (List<?>) TestCluster.decode(result,
                    StreamingKeyedSum.class.getName(), params, 1).get(StreamingKeyedSum.RESULT);
            assertThat(StreamingKeyedSum.verify(sums, records, keys)).isEmpty();

            String waiting = client.submit(SubmitJobRequest.newBuilder().setJobId("needs-two-slots")
                    .setJobClass(StreamingKeyedSum.class.getName()).putAllParams(params).setParallelism(2)
                    .putConfig("execution.runtime-mode", "streaming").build()).getJobId();
            await("the job says what it waits for").atMost(Duration.ofSeconds(30))
                    .until(() -> client.status(waiting).getWaitingFor(), w -> !w.isEmpty());
            Cli.Result shown = Cli.run(LOGS.watch(tempDir), Duration.ofSeconds(90), "--jobmanager", cluster.address(),
                    "status", waiting);
            assertThat(shown.stdout()).as("%s", shown).contains("  waiting: the job waits for 2 free task slots to"
                    + " deploy its 4 tasks together, 1 is free: add TaskManagers (or raise taskmanager.slots) or"
                    + " lower the job's parallelism");
            client.cancel(waiting);
            assertThat(cluster.awaitResult(waiting, Duration.ofSeconds(30)).getStatus().getState())
                    .isEqualTo(JobState.JOB_CANCELED);
        }
    }
}
