package io.duraflow.cli;

import static io.duraflow.cli.ExactResults.assertSameEntries;
import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.examples.WordCount;
import io.duraflow.rpc.proto.JobResult;
import io.duraflow.rpc.proto.JobState;
import io.duraflow.rpc.proto.JobStatus;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * One TaskManager with one slot, restarts switched off: every task of a job runs in the same slot,
 * each deployed the moment the one before reported FINISHED. Nothing fails, so every job must
 * finish without a single restart.
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
}
