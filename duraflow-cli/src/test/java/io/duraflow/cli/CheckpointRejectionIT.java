package io.duraflow.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.duraflow.cli.demo.CheckpointWatch;
import io.duraflow.examples.SnapshotChangelogJob;
import io.duraflow.examples.cdc.CdcFiles;
import io.duraflow.rpc.proto.JobResult;
import io.duraflow.rpc.proto.JobState;
import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.rpc.proto.SubmitJobRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Checkpoint rejection against real processes, with the snapshot-changelog source: soft declines
 * alone never fail a job, even with {@code tolerable-failed-checkpoints} 0, and its output is
 * exact; a chunk that never ends turns into hard declines that name the source's limit, fail the
 * job over, and fail it once the restarts are used up.
 */
class CheckpointRejectionIT {
    private static final Duration TIMEOUT = Duration.ofMinutes(2);
    private static final long ROWS = 12_000;
    private static final long CHANGES = 3_000;

    @RegisterExtension
    static final LogsOnFailure LOGS = new LogsOnFailure();

    @TempDir
    static Path tempDir;

    private static TestCluster cluster;
    private static ClusterClient client;
    private static Path table;
    private static Path changelog;

    @BeforeAll
    static void startCluster() throws Exception {
        table = tempDir.resolve("table.csv");
        changelog = tempDir.resolve("changes.csv");
        CdcFiles.write(table, ROWS, changelog, CHANGES);
        cluster = TestCluster.start(LOGS.watch(tempDir.resolve("cluster")), 1, Map.of("taskmanager.slots", "4",
                "restart-strategy.fixed-delay.attempts", "1"));
        client = new ClusterClient(cluster.address());
    }

    @AfterAll
    static void stopCluster() {
        if (client != null) {
            client.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    private static SubmitJobRequest.Builder job(String id, Map<String, String> params) {
        Map<String, String> all = new LinkedHashMap<>();
        all.put("table", table.toString());
        all.put("changelog", changelog.toString());
        all.put("output", tempDir.resolve("output-" + id).toString());
        all.put("chunk-rows", "500");
        all.put("rate", "4000");
        all.putAll(params);
        return SubmitJobRequest.newBuilder().setJobId(id).setJobClass(SnapshotChangelogJob.class.getName())
                .putAllParams(all).setParallelism(2)
                .putConfig("execution.runtime-mode", "streaming")
                .putConfig("execution.checkpointing.interval", "300ms")
                .putConfig("execution.checkpointing.tolerable-failed-checkpoints", "0")
                .putConfig("execution.checkpointing.dir", tempDir.resolve("checkpoints").toString());
    }

    /** Lines of the JobManager's log that say checkpoint N of the job failed for {@code reason}. */
    private static long failuresInLog(String jobId, String reason) throws Exception {
        Pattern failed = Pattern.compile("Job " + Pattern.quote(jobId) + ": checkpoint \\d+ failed \\(" + reason);
        return Files.readAllLines(tempDir.resolve("cluster/log/jobmanager.log"), StandardCharsets.UTF_8).stream()
                .filter(line -> failed.matcher(line).find()).count();
    }

    @Test
    void softDeclinesAloneNeverFailTheJobAndItsOutputIsExact() throws Exception {
        String jobId = client.submit(job("soft-only", Map.of()).build()).getJobId();

        JobResult result = cluster.awaitResult(jobId, TIMEOUT);

        JobStatus status = result.getStatus();
        assertThat(status.getState()).as("%s", status).isEqualTo(JobState.JOB_FINISHED);
        assertThat(status.getRestarts()).isZero();
        assertThat(failuresInLog(jobId, "SNAPSHOT_UNAVAILABLE_SOFT")).as("soft declines").isGreaterThan(1);
        assertThat(failuresInLog(jobId, "SNAPSHOT_UNAVAILABLE_HARD")).isZero();
        assertThat(CheckpointWatch.completedInLogs(tempDir.resolve("cluster/log"), jobId)).hasSizeGreaterThan(1);
        assertThat(CdcFiles.check(CdcFiles.readOutput(tempDir.resolve("output-" + jobId)),
                CdcFiles.expected(ROWS, CHANGES))).isEmpty();
    }

    @Test
    void aChunkThatNeverEndsDeclinesHardNamingTheLimitFailsOverAndThenFailsTheJob() throws Exception {
        String jobId = client.submit(job("stalled-chunk", Map.of("stall-chunk", "3", "max-chunk-time-ms", "1500"))
                .build()).getJobId();

        await("the hard decline's failover").atMost(TIMEOUT).pollInterval(Duration.ofMillis(100))
                .until(() -> cluster.status(jobId).getRestarts() >= 1 || JobRunner.isTerminal(
                        cluster.status(jobId).getState()));
        JobResult result = cluster.awaitResult(jobId, TIMEOUT);

        JobStatus status = result.getStatus();
        assertThat(status.getState()).as("%s", status).isEqualTo(JobState.JOB_FAILED);
        assertThat(status.getRestarts()).as("one failover, then restart-strategy.fixed-delay.attempts=1 is used up")
                .isEqualTo(1);
        assertThat(status.getFailure()).contains("tolerable-failed-checkpoints", "SNAPSHOT_UNAVAILABLE_HARD",
                "a chunk did not end within max-chunk-time-ms=1500", "reading chunk 3 of 24 of table.csv (rows 1500-1999)");
        assertThat(failuresInLog(jobId, "SNAPSHOT_UNAVAILABLE_HARD")).isEqualTo(2);
        Matcher unavailable = Pattern.compile("unavailable for (\\d+) ms").matcher(status.getFailure());
        assertThat(unavailable.find()).isTrue();
        assertThat(Long.parseLong(unavailable.group(1))).isGreaterThan(1500);
    }
}
