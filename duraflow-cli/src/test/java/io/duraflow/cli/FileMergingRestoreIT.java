package io.duraflow.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.duraflow.checkpoint.CheckpointVerifier;
import io.duraflow.cli.MergedCheckpoints.Merging;
import io.duraflow.examples.StreamingKeyedSum;
import io.duraflow.rpc.proto.JobResult;
import io.duraflow.rpc.proto.JobState;
import io.duraflow.rpc.proto.RestoreSettingsData;
import io.duraflow.rpc.proto.SubmitJobRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Checkpoint file merging across restores, against real processes: one job's state
 * passes through three runs, each restoring the previous one's retained checkpoint, all writing
 * the same output through the exactly-once file sink, so the output is exact only if no run lost
 * or repeated a record. RocksDB incremental checkpoints every 300 ms, nothing inlined.
 * <ol>
 *   <li>{@code a}: merging off, parallelism 2 on two TaskManagers, cancelled with {@code
 *       retain-on-cancellation}: it verifies clean and has no merged file.</li>
 *   <li>{@code b}: a third TaskManager starts; {@code a}'s checkpoint restored without claiming,
 *       merging on across checkpoints (off -> on), parallelism 3 on the three TaskManagers;
 *       cancelled with {@code retain-on-cancellation}: it verifies clean and merged (a shared
 *       directory per subtask of the new parallelism, a task-owned one per TaskManager), and
 *       {@code a}'s files are as they were. {@code duraflow checkpoints verify} on the whole
 *       checkpoint directory says OK for both.</li>
 *   <li>{@code c}: {@code b}'s merged checkpoint restored with {@code --claim}, merging on across
 *       checkpoints (on -> on), cancelled with {@code retain-on-cancellation} after a few
 *       checkpoints: its TaskManagers never reuse {@code b}'s merged files, so once its first
 *       checkpoint subsumed the claimed one every file of {@code b} is deleted, and {@code duraflow
 *       checkpoints verify} counts as many files on disk in {@code c}'s directory as its retained
 *       checkpoint refers to (none of them {@code b}'s).</li>
 *   <li>{@code d}: {@code c}'s merged checkpoint restored with {@code --claim}, merging off (on ->
 *       off), parallelism 2, the default retention, runs to the end: exact output, its directory
 *       is gone, the claimed checkpoint and every file of {@code c} are deleted, {@code a}'s files
 *       are still as they were.</li>
 * </ol>
 * Finally the verifier is shown to see a missing file and an orphan in {@code a}'s directory.
 */
class FileMergingRestoreIT {
    private static final long RECORDS = 120_000;
    private static final long KEYS = 60_000;
    /** Runs a and b are cancelled after a few checkpoints: they read a few seconds' worth each. */
    private static final long SLOW_RATE = 4_000;
    private static final long FAST_RATE = 40_000;
    private static final String INTERVAL = "300ms";
    private static final Duration JOB_TIMEOUT = Duration.ofMinutes(2);
    private static final Duration POLL = Duration.ofMillis(100);

    @RegisterExtension
    static final LogsOnFailure LOGS = new LogsOnFailure();

    @TempDir
    Path tempDir;

    private TestCluster cluster;

    @AfterEach
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private Path checkpoints() {
        return tempDir.resolve("checkpoints");
    }

    private Path jobDirectory(String jobId) {
        return checkpoints().resolve(jobId);
    }

    private Path output() {
        return tempDir.resolve("output");
    }

    private SubmitJobRequest job(String jobId, int parallelism, long rate, Merging merging, boolean retain,
            String restorePath, boolean claim) {
        SubmitJobRequest.Builder request = SubmitJobRequest.newBuilder().setJobId(jobId)
                .setJobClass(StreamingKeyedSum.class.getName())
                .putAllParams(MergedCheckpoints.keyedSum(RECORDS, KEYS, rate, output()))
                .putAllConfig(MergedCheckpoints.config(checkpoints(), INTERVAL, merging, retain))
                .setParallelism(parallelism);
        if (restorePath != null) {
            request.setRestore(RestoreSettingsData.newBuilder().setPath(restorePath).setClaim(claim));
        }
        return request.build();
    }

    @Test
    void offThenOnAcrossWithParallelism3OnThreeTaskManagersThenClaimedMergedThenClaimedWithMergingOff() throws Exception {
        long started = System.nanoTime();
        cluster = TestCluster.start(LOGS.watch(tempDir.resolve("cluster")), 2, Map.of("taskmanager.slots", "4"));
        try (ClusterClient client = new ClusterClient(cluster.address())) {
            // a: merging off, parallelism 2 on two TaskManagers
            client.submit(job("a", 2, SLOW_RATE, Merging.OFF, true, null, false));
            cancelAfterCompletedCheckpoints(client, "a", 3);
            CheckpointVerifier.Report a = MergedCheckpoints.awaitClean(jobDirectory("a"));
            assertThat(a.mergedFiles()).as("merged files of a (merging off)").isZero();
            assertThat(MergedCheckpoints.mergedFiles(jobDirectory("a"))).as("files in file-merging directories of a")
                    .isEmpty();
            Map<String, Long> filesOfA = MergedCheckpoints.filesWithSizes(jobDirectory("a"));
            Path chkOfA = onlyCheckpoint("a");

            // b: no-claim restore of a, merging across checkpoints, parallelism 3 on three TaskManagers
            cluster.startTaskManager();
            cluster.awaitTaskManagers(3);
            client.submit(job("b", 3, SLOW_RATE, Merging.ACROSS, true, chkOfA.toString(), false));
            await("a checkpoint of b that reuses files of an earlier one").atMost(JOB_TIMEOUT).pollInterval(POLL)
                    .ignoreException(CliException.class)
                    .failFast("b ended", () -> JobRunner.isTerminal(client.status("b").getState()))
                    .until(() -> client.checkpoints("b").getCheckpointsList().stream()
                            .anyMatch(c -> c.getStatus().equals("COMPLETED") && c.getFilesReused() > 0));
            cancelAfterCompletedCheckpoints(client, "b", 3);
            CheckpointVerifier.Report b = MergedCheckpoints.awaitClean(jobDirectory("b"));
            MergedCheckpoints.assertMerged(b, jobDirectory("b"));
            assertThat(MergedCheckpoints.mergingDirectories(jobDirectory("b"), "shared"))
                    .as("shared file-merging directories of b, one per subtask at parallelism 3")
                    .containsExactlyInAnyOrder("subtask-0-3-v1", "subtask-1-3-v1", "subtask-2-3-v1");
            List<String> taskOwned = MergedCheckpoints.mergingDirectories(jobDirectory("b"), "taskowned");
            Set<String> taskManagers = taskOwned.stream().map(name -> name.substring(0, name.lastIndexOf('-')))
                    .collect(Collectors.toSet());
            assertThat(taskManagers).as("TaskManagers of b's task-owned directories %s", taskOwned).hasSize(3);
            assertThat(MergedCheckpoints.filesWithSizes(jobDirectory("a"))).as("a's files after b restored them"
                    + " without claiming").isEqualTo(filesOfA);
            Cli.Result verify = Cli.run(LOGS.watch(tempDir), Duration.ofSeconds(90), "checkpoints", "verify",
                    checkpoints().toString());
            assertThat(verify.exitCode()).as("%s", verify).isZero();
            assertThat(verify.stdout().lines().filter(line -> line.equals("OK")).count()).as("%s", verify)
                    .isEqualTo(2);
            System.out.println(verify.stdout());
            Path chkOfB = onlyCheckpoint("b");
            Set<Path> filesOfB = MergedCheckpoints.referencedFiles(chkOfB.resolve("_metadata"));

            // c: claims b's merged checkpoint, merging across checkpoints, cancelled after a few checkpoints
            client.submit(job("c", 3, SLOW_RATE, Merging.ACROSS, true, chkOfB.toString(), true));
            cancelAfterCompletedCheckpoints(client, "c", 3);
            await("the claimed checkpoint of b, every file of b and the directories they were in deleted")
                    .atMost(Duration.ofSeconds(60)).pollInterval(POLL).until(() -> !Files.exists(jobDirectory("b")));
            assertThat(filesOfB).as("files b's claimed checkpoint referred to").noneMatch(Files::exists);
            CheckpointVerifier.Report c = MergedCheckpoints.awaitClean(jobDirectory("c"));
            MergedCheckpoints.assertMerged(c, jobDirectory("c"));
            Cli.Result verifyC = Cli.run(LOGS.watch(tempDir), Duration.ofSeconds(90), "checkpoints", "verify",
                    jobDirectory("c").toString());
            assertThat(verifyC.exitCode()).as("%s", verifyC).isZero();
            assertThat(verifyC.stdout()).as("c's retained checkpoint refers to exactly the files in its directory")
                    .contains("  files:  " + c.filesOnDisk() + " referenced (");
            Path chkOfC = onlyCheckpoint("c");
            Set<Path> filesOfC = MergedCheckpoints.referencedFiles(chkOfC.resolve("_metadata"));

            // d: claims c's merged checkpoint, merging off, parallelism 2, default retention, to the end
            client.submit(job("d", 2, FAST_RATE, Merging.OFF, false, chkOfC.toString(), true));
            JobResult d = cluster.awaitResult("d", JOB_TIMEOUT);
            assertThat(d.getStatus().getState()).as("state of d, failure '%s'", d.getStatus().getFailure())
                    .isEqualTo(JobState.JOB_FINISHED);
            MergedCheckpoints.assertExactOutput(output(), RECORDS, KEYS);
            await("d's checkpoints deleted (default retention)").atMost(Duration.ofSeconds(60)).pollInterval(POLL)
                    .until(() -> !Files.exists(jobDirectory("d")));
            await("the claimed checkpoint of c, every file of c and the directories they were in deleted")
                    .atMost(Duration.ofSeconds(60)).pollInterval(POLL).until(() -> !Files.exists(jobDirectory("c")));
            assertThat(filesOfC).as("files c's claimed checkpoint referred to").noneMatch(Files::exists);
            assertThat(MergedCheckpoints.filesWithSizes(jobDirectory("a"))).as("a's files at the end")
                    .isEqualTo(filesOfA);
            System.out.printf("a: %s%nb: %s%nc: %s%n", MergedCheckpoints.describe(a), MergedCheckpoints.describe(b),
                    MergedCheckpoints.describe(c));
        }

        // The verifier sees what is wrong: one of a's referenced files gone, one stray file.
        Path referenced = MergedCheckpoints.referencedFiles(onlyCheckpoint("a").resolve("_metadata")).iterator()
                .next();
        Files.delete(referenced);
        Files.writeString(jobDirectory("a").resolve("shared").resolve("stray"), "x");
        CheckpointVerifier.Report broken = MergedCheckpoints.verify(jobDirectory("a"));
        assertThat(broken.scan().missing().keySet()).as("missing files").hasSize(1);
        assertThat(broken.scan().orphans()).as("orphans").hasSize(1);
        System.out.printf("FileMergingRestoreIT: %.1f s%n", (System.nanoTime() - started) / 1e9);
    }

    /** Waits for {@code count} completed checkpoints of the job, cancels it, and waits until its cleanup ran. */
    private void cancelAfterCompletedCheckpoints(ClusterClient client, String jobId, int count) {
        await(count + " completed checkpoints of " + jobId).atMost(JOB_TIMEOUT).pollInterval(POLL)
                .ignoreException(CliException.class)
                .failFast(jobId + " ended", () -> JobRunner.isTerminal(client.status(jobId).getState()))
                .until(() -> client.checkpoints(jobId).getCompleted() >= count);
        client.cancel(jobId);
        JobResult result = cluster.awaitResult(jobId, JOB_TIMEOUT);
        assertThat(result.getStatus().getState()).as("state of %s", jobId).isEqualTo(JobState.JOB_CANCELED);
        await("the cleanup of " + jobId + " ran").atMost(Duration.ofSeconds(60)).pollInterval(POLL)
                .until(() -> cluster.logText("jobmanager").contains("Job " + jobId + " ended as CANCELED: its"
                        + " checkpoints stay under"));
    }

    /** The job's only retained {@code chk-<n>} directory. */
    private Path onlyCheckpoint(String jobId) throws Exception {
        List<Long> ids = MergedCheckpoints.checkpointDirectories(jobDirectory(jobId));
        assertThat(ids).as("checkpoint directories of %s", jobId).hasSize(1);
        return jobDirectory(jobId).resolve("chk-" + ids.get(0));
    }
}
