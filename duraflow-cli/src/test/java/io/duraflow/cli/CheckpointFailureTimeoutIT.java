package io.duraflow.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.duraflow.examples.SnapshotChangelogJob;
import io.duraflow.examples.cdc.CdcFiles;
import io.duraflow.ha.LeaderInfo;
import io.duraflow.rpc.proto.JobState;
import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.rpc.proto.SubmitJobRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The window of {@code tolerable-failed-checkpoints-timeout} survives a leader SIGKILL, with real
 * processes: ZooKeeper, two JobManagers, one TaskManager, and the snapshot-changelog job whose first
 * chunk never ends, so its source declines every checkpoint softly. The leader is killed 4 s after
 * the job started; the new leader counts from the job's start (recorded with its checkpoints), not
 * from its own, so the job fails over (here: fails, no restarts allowed) about 10 s after it started
 * instead of 10 s after the take-over.
 */
class CheckpointFailureTimeoutIT {
    private static final long FAILURE_TIMEOUT_MS = 10_000;
    private static final long KILL_AFTER_MS = 4_000;

    @RegisterExtension
    static final LogsOnFailure LOGS = new LogsOnFailure();

    @TempDir
    Path tempDir;

    private HaCluster cluster;

    @AfterEach
    void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void aNewLeaderKeepsTheFailureWindowOfTheJobInsteadOfStartingItsOwn() throws Exception {
        Path table = tempDir.resolve("table.csv");
        Path changelog = tempDir.resolve("changes.csv");
        CdcFiles.write(table, 2_000, changelog, 100);
        cluster = HaCluster.start(LOGS.watch(tempDir.resolve("cluster")), ZooKeeperServer.shared(), 2, 1, Map.of(
                "taskmanager.slots", "2", "restart-strategy.fixed-delay.attempts", "0"));
        String jobId = cluster.submit(SubmitJobRequest.newBuilder().setJobId("soft-forever")
                .setJobClass(SnapshotChangelogJob.class.getName()).setParallelism(1)
                .putAllParams(Map.of("table", table.toString(), "changelog", changelog.toString(),
                        "chunk-rows", "500", "rate", "2000", "stall-chunk", "0", "max-chunk-time-ms", "600000"))
                .putConfig("execution.runtime-mode", "streaming")
                .putConfig("execution.checkpointing.interval", "300ms")
                .putConfig("execution.checkpointing.tolerable-failed-checkpoints-timeout", FAILURE_TIMEOUT_MS + "ms")
                .putConfig("execution.checkpointing.dir", tempDir.resolve("checkpoints").toString()).build());
        JobStatus running = await("the job runs").atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(100))
                .ignoreException(CliException.class)
                .until(() -> cluster.status(jobId), s -> s.getState() == JobState.JOB_RUNNING);
        long submittedMs = running.getSubmittedAtMs();
        await("4 s into the job").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
                .until(() -> System.currentTimeMillis() >= submittedMs + KILL_AFTER_MS);

        HaCluster.JobManager leader = cluster.leader().orElseThrow();
        LeaderInfo session = cluster.leaderInfo();
        cluster.kill(leader);
        cluster.awaitNewLeader(leader, session, HaCluster.FAILOVER_TIMEOUT);
        JobStatus status = cluster.awaitResult(jobId, Duration.ofMinutes(2)).getStatus();

        assertThat(status.getState()).as("%s", status).isEqualTo(JobState.JOB_FAILED);
        assertThat(status.getFailure()).contains("no checkpoint completed within " + FAILURE_TIMEOUT_MS + " ms",
                "SNAPSHOT_UNAVAILABLE_SOFT");
        long failedAfterMs = status.getEndedAtMs() - submittedMs;
        long takenOverAfterMs = status.getTakenOverAtMs() - submittedMs;
        System.out.printf("the job failed over %d ms after its submission; the leader was killed after %d ms and"
                + " the new one took over after %d ms%n", failedAfterMs, KILL_AFTER_MS, takenOverAfterMs);
        // A window of the new leader's own would end at the take-over + 10 s at the earliest; the job's ends
        // 10 s after its start, or, if the take-over came later, at the first checkpoint failed after it.
        assertThat(failedAfterMs).as("from the job's start, not the new leader's").isGreaterThanOrEqualTo(
                FAILURE_TIMEOUT_MS).isLessThan(Math.max(takenOverAfterMs, FAILURE_TIMEOUT_MS) + KILL_AFTER_MS);
    }
}
