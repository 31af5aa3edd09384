package io.duraflow.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.duraflow.checkpoint.CheckpointDirectoryScan;
import io.duraflow.checkpoint.CompletedCheckpoint;
import io.duraflow.examples.StreamingKeyedSum;
import io.duraflow.fs.FsPath;
import io.duraflow.fs.LocalFileSystem;
import io.duraflow.rpc.proto.CheckpointSummary;
import io.duraflow.rpc.proto.JobCheckpoints;
import io.duraflow.rpc.proto.JobState;
import io.duraflow.rpc.proto.SubmitJobRequest;
import io.duraflow.state.CheckpointDirectories;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The no-leftover-files guarantee against real processes: streaming jobs take
 * checkpoints every 200 ms, a TaskManager is SIGKILLed in the middle (checkpoints in progress are
 * aborted, the job restores), more checkpoints complete, then the jobs are cancelled. With
 * {@code retain-on-cancellation} the job's checkpoint directory then holds exactly its retained
 * checkpoints ({@code num-retained} 2) and what they refer to: {@link CheckpointDirectoryScan}
 * finds no orphan, no missing file and no empty directory. With the default retention the
 * directory is gone. {@code duraflow checkpoints} shows full and incremental sizes and the files
 * uploaded (the heap backend writes full snapshots: nothing reused) while the jobs run.
 */
class CheckpointCleanupIT {
    private static final Duration TIMEOUT = Duration.ofMinutes(2);
    private static final Duration POLL = Duration.ofMillis(100);

    @RegisterExtension
    static final LogsOnFailure LOGS = new LogsOnFailure();

    @TempDir
    Path tempDir;

    private TestCluster cluster;

    @AfterEach
    void stop() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    private Path checkpoints() {
        return tempDir.resolve("checkpoints");
    }

    private Map<String, String> checkpointing(boolean retain) {
        Map<String, String> config = new LinkedHashMap<>();
        config.put("execution.runtime-mode", "streaming");
        config.put("execution.checkpointing.interval", "200ms");
        config.put("execution.checkpointing.dir", checkpoints().toString());
        config.put("execution.checkpointing.num-retained", "2");
        config.put("state.storage.inline-threshold", "0");
        if (retain) {
            config.put("execution.checkpointing.retention", "retain-on-cancellation");
        }
        return config;
    }

    @Test
    void aCancelledJobLeavesExactlyItsRetainedCheckpoints() throws Exception {
        cluster = TestCluster.start(LOGS.watch(tempDir.resolve("cluster")), 3, Map.of("taskmanager.slots", "4"));
        String retained = "cancelled-retain";
        String deleted = "cancelled-delete";
        try (ClusterClient client = new ClusterClient(cluster.address())) {
            for (String jobId : List.of(retained, deleted)) {
                // About 100 s of input: the job runs until it is cancelled.
                client.submit(SubmitJobRequest.newBuilder().setJobId(jobId)
                        .setJobClass(StreamingKeyedSum.class.getName()).putParams("records", "2000000")
                        .putParams("keys", "20000").putParams("rate", "20000")
                        .putParams("output", tempDir.resolve("output").resolve(jobId).toString())
                        .putAllConfig(checkpointing(jobId.equals(retained))).setParallelism(2).build());
            }
            long beforeKill = awaitCompletedAtLeast(client, retained, 3);
            awaitCompletedAtLeast(client, deleted, 3);
            cluster.killTaskManager(0);
            awaitCompletedAtLeast(client, retained, beforeKill + 4);
            awaitCompletedAtLeast(client, deleted, 4);

            JobCheckpoints report = client.checkpoints(retained);
            CheckpointsCommand.format(report).forEach(System.out::println);
            List<CheckpointSummary> completed = report.getCheckpointsList().stream()
                    .filter(c -> c.getStatus().equals("COMPLETED")).toList();
            assertThat(completed).as("completed checkpoints in %s", report).isNotEmpty().allSatisfy(c -> {
                assertThat(c.getStateSizeBytes()).isPositive();
                assertThat(c.getCheckpointedSizeBytes()).isEqualTo(c.getStateSizeBytes());
                assertThat(c.getFilesUploaded()).isPositive().isEqualTo(c.getFiles());
                assertThat(c.getFilesReused()).isZero();
                assertThat(c.getPath()).endsWith("/" + retained + "/chk-" + c.getCheckpointId());
            });

            for (String jobId : List.of(retained, deleted)) {
                client.cancel(jobId);
            }
            for (String jobId : List.of(retained, deleted)) {
                assertThat(cluster.awaitResult(jobId, TIMEOUT).getStatus().getState()).as("state of %s", jobId)
                        .isEqualTo(JobState.JOB_CANCELED);
            }
        }
        await("the cleanup of " + retained + " ran").atMost(Duration.ofSeconds(30)).pollInterval(POLL)
                .until(() -> cluster.logText("jobmanager").contains("Job " + retained + " ended as CANCELED: its"
                        + " checkpoints stay under"));
        await("the checkpoints of " + deleted + " deleted").atMost(Duration.ofSeconds(30)).pollInterval(POLL)
                .until(() -> !Files.exists(checkpoints().resolve(deleted)));

        CheckpointDirectories directories = CheckpointDirectories.of(FsPath.of(checkpoints()), retained);
        List<CompletedCheckpoint> kept = CheckpointDirectoryScan.checkpointsWithMetadata(LocalFileSystem.INSTANCE,
                directories, retained);
        assertThat(kept).as("checkpoints left of %s", retained).hasSizeBetween(1, 2);
        CheckpointDirectoryScan.Result scan = CheckpointDirectoryScan.scan(LocalFileSystem.INSTANCE, directories,
                kept);
        List<String> entries = new ArrayList<>();
        try (var files = Files.walk(checkpoints().resolve(retained))) {
            files.forEach(path -> entries.add(checkpoints().relativize(path).toString()));
        }
        System.out.printf("%s: %d checkpoints retained (%s), %d entries under its directory%n", retained, kept.size(),
                kept.stream().map(CompletedCheckpoint::checkpointId).toList(), entries.size());
        assertThat(scan.describe()).as("orphans and missing files under %s: %s", directories.jobDirectory(), entries)
                .isEmpty();
        assertThat(scan.emptyDirectories()).as("empty directories").isEmpty();
    }

    /** Waits until the job's latest completed checkpoint is at least {@code id}; returns it. */
    private static long awaitCompletedAtLeast(ClusterClient client, String jobId, long id) {
        return await("checkpoint " + id + " of " + jobId + " completed").atMost(TIMEOUT).pollInterval(POLL)
                .ignoreException(CliException.class)
                .until(() -> client.checkpoints(jobId).getLatestCompletedId(), latest -> latest >= id);
    }
}
