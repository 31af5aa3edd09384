package io.duraflow.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.duraflow.checkpoint.CheckpointMetadataFormat;
import io.duraflow.checkpoint.CompletedCheckpoint;
import io.duraflow.checkpoint.StateFileRegistry;
import io.duraflow.examples.StreamingKeyedSum;
import io.duraflow.fs.FsPath;
import io.duraflow.fs.LocalFileSystem;
import io.duraflow.rpc.proto.JobResult;
import io.duraflow.rpc.proto.JobState;
import io.duraflow.rpc.proto.SubmitJobRequest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Savepoints and restores against real processes (issue 11), with {@link StreamingKeyedSum}
 * writing through the exactly-once file sink; each key emits (key, sum, count) on its last record,
 * so a record lost or counted twice across the two runs shows as a wrong line:
 * <ul>
 *   <li>{@code duraflow savepoint} of a running job at parallelism 2, then {@code duraflow cancel
 *       --savepoint}: the job ends CANCELED after the savepoint; every file of a savepoint is inside
 *       its directory; the directory is moved, and {@code run --from-savepoint} restores it at
 *       parallelism 3 (no-claim): exact output, and the moved savepoint's files untouched after the
 *       new job's checkpoints; one-line errors for bad paths and for state of operators the job
 *       does not have.</li>
 *   <li>A retained checkpoint of a parallelism-3 job restored at parallelism 1 in claim mode:
 *       exact output, and the claimed {@code chk-<n>} deleted once the new job's checkpoints
 *       subsumed it.</li>
 * </ul>
 */
class SavepointsIT {
    private static final long RECORDS = 120_000;
    private static final long KEYS = 1_000;
    /** Records per second over all sources: about 6 s per job, room for a savepoint and a restore. */
    private static final String RATE = "20000";
    private static final Duration JOB_TIMEOUT = Duration.ofMinutes(2);
    private static final Duration CLI_TIMEOUT = Duration.ofSeconds(90);
    private static final Duration POLL = Duration.ofMillis(100);

    @RegisterExtension
    static final LogsOnFailure LOGS = new LogsOnFailure();

    @TempDir
    Path tempDir;

    private final List<AutoCloseable> clusters = new ArrayList<>();

    @AfterEach
    void stopClusters() throws Exception {
        for (AutoCloseable cluster : clusters) {
            cluster.close();
        }
    }

    private TestCluster startCluster() throws Exception {
        TestCluster cluster = TestCluster.start(LOGS.watch(tempDir.resolve("cluster")), 2,
                Map.of("taskmanager.slots", "4"));
        clusters.add(cluster);
        return cluster;
    }

    private Cli.Result duraflow(String... args) throws IOException, InterruptedException {
        return Cli.run(LOGS.watch(tempDir), CLI_TIMEOUT, args);
    }

    /** Where a job writes: the restored job writes where the job it restores wrote, as a user would run it. */
    private Path output(String jobId) {
        return tempDir.resolve("output").resolve(switch (jobId) {
            case "first", "second" -> "sums";
            case "wide", "narrow" -> "narrowed-sums";
            default -> jobId;
        });
    }

    private Path checkpoints() {
        return tempDir.resolve("checkpoints");
    }

    /** The -D options of a streaming run with a checkpoint every 300 ms, all state in files. */
    private List<String> checkpointingFlags() {
        return List.of("-D", "execution.runtime-mode=streaming", "-D", "execution.checkpointing.interval=300ms",
                "-D", "execution.checkpointing.dir=" + checkpoints(), "-D", "state.storage.inline-threshold=0");
    }

    private SubmitJobRequest job(String jobId, int parallelism, Map<String, String> extraConfig) {
        SubmitJobRequest.Builder request = SubmitJobRequest.newBuilder().setJobId(jobId)
                .setJobClass(StreamingKeyedSum.class.getName()).putParams("records", Long.toString(RECORDS))
                .putParams("keys", Long.toString(KEYS)).putParams("rate", RATE)
                .putParams("output", output(jobId).toString()).setParallelism(parallelism)
                .putConfig("execution.runtime-mode", "streaming")
                .putConfig("execution.checkpointing.interval", "300ms")
                .putConfig("execution.checkpointing.dir", checkpoints().toString())
                .putConfig("state.storage.inline-threshold", "0");
        extraConfig.forEach(request::putConfig);
        return request.build();
    }

    /** {@code run streaming-keyed-sum ... --from-savepoint PATH extra...}, detached. */
    private Cli.Result runFrom(TestCluster cluster, String jobId, int parallelism, String path, String... extra)
            throws IOException, InterruptedException {
        List<String> args = new ArrayList<>(List.of("--jobmanager", cluster.address(), "run",
                "streaming-keyed-sum", "--param", "records=" + RECORDS, "--param", "keys=" + KEYS, "--param",
                "rate=" + RATE, "--param", "output=" + output(jobId), "--parallelism", Integer.toString(parallelism),
                "--job-id", jobId, "--detached", "--from-savepoint", path));
        args.addAll(List.of(extra));
        args.addAll(checkpointingFlags());
        return duraflow(args.toArray(String[]::new));
    }

    private static void assertOneLineError(Cli.Result result, String expectedStart) {
        assertThat(result.exitCode()).as("exit code of %s", result).isNotZero();
        assertThat(result.stderrLines()).as("stderr of %s", result).hasSize(1);
        assertThat(result.stderrLines().get(0)).as("stderr of %s", result).startsWith("duraflow: " + expectedStart);
    }

    @Test
    void aSavepointIsTakenMovedAndRestoredWithParallelism3AndNoClaimLeavesItsFilesAlone() throws Exception {
        TestCluster cluster = startCluster();
        Path savepoints = tempDir.resolve("savepoints");
        try (ClusterClient client = new ClusterClient(cluster.address())) {
            client.submit(job("first", 2, Map.of()));
            await("a completed checkpoint of the first run").atMost(JOB_TIMEOUT).pollInterval(POLL)
                    .until(() -> client.checkpoints("first").getLatestCompletedId() > 0);

            Cli.Result savepoint = duraflow("--jobmanager", cluster.address(), "savepoint", "first",
                    savepoints.toString());
            assertThat(savepoint.exitCode()).as("%s", savepoint).isZero();
            Path firstSavepoint = Path.of(lastLine(savepoint, "Restore it with").replaceFirst(
                    "^Restore it with 'duraflow run JOB --from-savepoint (.*)'$", "$1"));
            assertThat(firstSavepoint.getParent()).isEqualTo(savepoints);
            assertThat(firstSavepoint.getFileName().toString()).startsWith("savepoint-first-");
            assertSelfContained(firstSavepoint);
            assertThat(client.status("first").getState()).isEqualTo(JobState.JOB_RUNNING);

            assertOneLineError(duraflow("--jobmanager", cluster.address(), "savepoint", "first"),
                    "no savepoint directory: give one (duraflow savepoint JOB_ID DIR) or set"
                            + " execution.checkpointing.savepoint-dir");
            assertOneLineError(duraflow("--jobmanager", cluster.address(), "savepoint", "no-such-job",
                    savepoints.toString()), "no running job with id 'no-such-job'");

            Cli.Result cancel = duraflow("--jobmanager", cluster.address(), "cancel", "first", "--savepoint",
                    savepoints.toString());
            assertThat(cancel.exitCode()).as("%s", cancel).isZero();
            assertThat(cancel.stdout()).as("%s", cancel).contains("Job first CANCELED");
            JobResult first = cluster.awaitResult("first", JOB_TIMEOUT);
            assertThat(first.getStatus().getState()).isEqualTo(JobState.JOB_CANCELED);
            Path lastSavepoint = Path.of(lastLine(cancel, "Restore it with").replaceFirst(
                    "^Restore it with 'duraflow run JOB --from-savepoint (.*)'$", "$1"));
            assertSelfContained(lastSavepoint);

            assertOneLineError(duraflow("--jobmanager", cluster.address(), "savepoint", "first",
                    savepoints.toString()), "job first already ended as CANCELED");

            Path moved = tempDir.resolve("moved").resolve("my-savepoint");
            Files.createDirectories(moved.getParent());
            Files.move(lastSavepoint, moved);
            Map<String, Long> filesBefore = filesWithSizes(moved);

            assertOneLineError(runFrom(cluster, "missing", 3, tempDir.resolve("nothing-here").toString()),
                    "no savepoint or checkpoint at " + tempDir.resolve("nothing-here"));
            Files.createDirectories(tempDir.resolve("empty"));
            assertOneLineError(runFrom(cluster, "empty", 3, tempDir.resolve("empty").toString()),
                    tempDir.resolve("empty") + " is not a savepoint or checkpoint");
            Path corrupt = tempDir.resolve("corrupt");
            Files.createDirectories(corrupt);
            Files.write(corrupt.resolve("_metadata"), new byte[] {0x44, 0x46, 0x43, 0x4d, 0, 0});
            assertOneLineError(runFrom(cluster, "corrupt", 3, corrupt.toString()),
                    "corrupt checkpoint metadata file " + corrupt.resolve("_metadata")
                            + ": torn");

            Cli.Result restored = runFrom(cluster, "second", 3, moved.toString());
            assertThat(restored.exitCode()).as("%s", restored).isZero();
            await("three completed checkpoints of the restored job").atMost(JOB_TIMEOUT).pollInterval(POLL)
                    .until(() -> completedOrEnded(client, "second", 3));
            JobResult second = cluster.awaitResult("second", JOB_TIMEOUT);
            assertThat(second.getStatus().getState()).as("%s", second.getStatus()).isEqualTo(JobState.JOB_FINISHED);
            assertThat(second.getStatus().getRestarts()).isZero();

            List<String> problems = ExactOutput.check(StreamingKeyedSum.readOutput(output("second")), RECORDS, KEYS);
            assertThat(problems).as("problems of the committed output of the restored job").isEmpty();
            assertThat(filesWithSizes(moved)).as("the no-claim savepoint's files after the restored job ran")
                    .isEqualTo(filesBefore);
            assertThat(cluster.logText("jobmanager")).contains("Job second restores savepoint ")
                    .contains(" in no-claim mode");
        }
    }

    @Test
    void aRetainedCheckpointRestoredInClaimModeWithParallelism1IsDeletedOnceSubsumed() throws Exception {
        TestCluster cluster = startCluster();
        try (ClusterClient client = new ClusterClient(cluster.address())) {
            client.submit(job("wide", 3, Map.of("execution.checkpointing.retention", "retain-on-cancellation")));
            await("two completed checkpoints of the parallelism-3 job").atMost(JOB_TIMEOUT).pollInterval(POLL)
                    .until(() -> client.checkpoints("wide").getCompleted() >= 2);
            client.cancel("wide");
            cluster.awaitResult("wide", JOB_TIMEOUT);
            List<String> retained = chkDirectories(checkpoints().resolve("wide"));
            assertThat(retained).as("retained checkpoints of the cancelled job").hasSize(1);
            Path chk = checkpoints().resolve("wide").resolve(retained.get(0));
            long claimedId = Long.parseLong(retained.get(0).substring("chk-".length()));
            Set<Path> claimedFiles = referencedFiles(chk);
            assertThat(claimedFiles).as("state files of %s", chk).isNotEmpty();

            Cli.Result restored = runFrom(cluster, "narrow", 1, chk.resolve("_metadata").toString(), "--claim");
            assertThat(restored.exitCode()).as("%s", restored).isZero();
            await("the claimed checkpoint is deleted once the new job's checkpoints subsumed it")
                    .atMost(JOB_TIMEOUT).pollInterval(POLL).until(() -> !Files.exists(chk)
                            && claimedFiles.stream().noneMatch(Files::exists));
            JobResult narrow = cluster.awaitResult("narrow", JOB_TIMEOUT);
            assertThat(narrow.getStatus().getState()).as("%s", narrow.getStatus()).isEqualTo(JobState.JOB_FINISHED);
            List<String> problems = ExactOutput.check(StreamingKeyedSum.readOutput(output("narrow")), RECORDS, KEYS);
            assertThat(problems).as("problems of the committed output of the restored job").isEmpty();
            String log = cluster.logText("jobmanager");
            assertThat(log).contains("Job narrow restores checkpoint " + claimedId + " of job wide")
                    .contains("in claim mode");
            assertThat(triggeredIds(log, "narrow")).as("checkpoint ids of the restored job")
                    .allMatch(id -> id > claimedId);
        }
    }

    // ------------------------------------------------------------------ helpers

    private static boolean completedOrEnded(ClusterClient client, String jobId, int completed) {
        if (JobRunner.isTerminal(client.status(jobId).getState())) {
            return true;
        }
        try {
            return client.checkpoints(jobId).getCompleted() >= completed;
        } catch (CliException e) {
            return JobRunner.isTerminal(client.status(jobId).getState());
        }
    }

    private static String lastLine(Cli.Result result, String prefix) {
        List<String> lines = result.stdout().lines().filter(line -> line.startsWith(prefix)).toList();
        assertThat(lines).as("lines starting with '%s' in %s", prefix, result).isNotEmpty();
        return lines.get(lines.size() - 1);
    }

    /** Every file the savepoint's metadata refers to is inside its directory, and exists. */
    private static void assertSelfContained(Path savepoint) throws IOException {
        Set<Path> files = referencedFiles(savepoint);
        assertThat(files).as("state files of %s", savepoint).isNotEmpty()
                .allMatch(file -> file.getParent().equals(savepoint)).allMatch(Files::exists);
    }

    private static Set<Path> referencedFiles(Path directory) throws IOException {
        CompletedCheckpoint checkpoint = CheckpointMetadataFormat.read(LocalFileSystem.INSTANCE,
                FsPath.of(directory.resolve("_metadata")));
        Set<Path> files = new TreeSet<>();
        for (FsPath file : StateFileRegistry.filesOf(checkpoint)) {
            files.add(file.toLocalPath());
        }
        return files;
    }

    private static Map<String, Long> filesWithSizes(Path directory) throws IOException {
        Map<String, Long> files = new TreeMap<>();
        try (Stream<Path> all = Files.walk(directory)) {
            for (Path file : all.filter(Files::isRegularFile).toList()) {
                files.put(directory.relativize(file).toString(), Files.size(file));
            }
        }
        return files;
    }

    private static List<String> chkDirectories(Path jobCheckpoints) throws IOException {
        try (Stream<Path> entries = Files.list(jobCheckpoints)) {
            return entries.map(p -> p.getFileName().toString()).filter(name -> name.startsWith("chk-")).sorted()
                    .toList();
        }
    }

    /** The ids the JobManager logged as triggered for the job. */
    private static List<Long> triggeredIds(String log, String jobId) {
        List<Long> ids = new ArrayList<>();
        var matcher = java.util.regex.Pattern.compile("Triggering checkpoint (\\d+) of job " + jobId + " ")
                .matcher(log);
        while (matcher.find()) {
            ids.add(Long.parseLong(matcher.group(1)));
        }
        assertThat(ids).as("checkpoints triggered for %s", jobId).isNotEmpty();
        return ids;
    }
}
