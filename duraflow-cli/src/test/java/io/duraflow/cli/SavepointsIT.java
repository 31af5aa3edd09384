package io.duraflow.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.duraflow.checkpoint.CheckpointMetadataFormat;
import io.duraflow.checkpoint.CompletedCheckpoint;
import io.duraflow.checkpoint.StateFileRegistry;
import io.duraflow.cli.demo.ExactOutput;
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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Savepoints and restores against real processes, with {@link StreamingKeyedSum}
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
 * The tests share one cluster (a JobManager and two TaskManagers with four slots each).
 */
class SavepointsIT {
    private static final long RECORDS = 120_000;
    private static final long KEYS = 1_000;
    /**
     * Records per second over all sources of a job that is savepointed or cancelled while it runs:
     * a minute for all records, so the commands (each a JVM of its own, slow on a loaded machine)
     * find it running.
     */
    private static final String SLOW_RATE = "2000";
    /** Records per second of a restored job: it reads the rest in a few seconds. */
    private static final String FAST_RATE = "40000";
    private static final Duration JOB_TIMEOUT = Duration.ofMinutes(2);
    private static final Duration CLI_TIMEOUT = Duration.ofSeconds(90);
    private static final Duration POLL = Duration.ofMillis(100);

    @RegisterExtension
    static final LogsOnFailure LOGS = new LogsOnFailure();

    @TempDir
    static Path sharedDir;

    @TempDir
    Path tempDir;

    /** Shared by the tests, which kill no process: each has its own job ids, output and checkpoint directories. */
    private static TestCluster cluster;

    @BeforeAll
    static void startCluster() throws IOException {
        cluster = TestCluster.start(LOGS.watch(sharedDir.resolve("cluster")), 2, Map.of("taskmanager.slots", "4"));
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    /** Every job of the test ended: the next test finds every slot free. */
    @AfterEach
    void awaitIdle() {
        await("no job runs").atMost(Duration.ofSeconds(30)).pollInterval(POLL)
                .until(() -> cluster.overview().getRunningJobs() == 0);
    }

    private Cli.Result duraflow(String... args) throws IOException, InterruptedException {
        return Cli.run(LOGS.watch(tempDir), CLI_TIMEOUT, args);
    }

    /** Where a job writes: the restored job writes where the job it restores wrote, as a user would run it. */
    private Path output(String jobId) {
        return tempDir.resolve("output").resolve(switch (jobId) {
            case "first", "second" -> "sums";
            case "wide", "narrow" -> "narrowed-sums";
            case "on-heap", "on-rocksdb" -> "moved-sums";
            case "writing", "rewriting" -> "rewritten-sums";
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
                .putParams("keys", Long.toString(KEYS)).putParams("rate", SLOW_RATE)
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
        return startFrom(cluster, jobId, parallelism, path, extra).await(CLI_TIMEOUT);
    }

    /** {@link #runFrom} started, not awaited: commands that do not depend on each other run side by side. */
    private Cli.Running startFrom(TestCluster cluster, String jobId, int parallelism, String path, String... extra)
            throws IOException {
        List<String> args = new ArrayList<>(List.of("--jobmanager", cluster.address(), "run",
                "streaming-keyed-sum", "--param", "records=" + RECORDS, "--param", "keys=" + KEYS, "--param",
                "rate=" + FAST_RATE, "--param", "output=" + output(jobId), "--parallelism", Integer.toString(parallelism),
                "--job-id", jobId, "--detached", "--from-savepoint", path));
        args.addAll(List.of(extra));
        args.addAll(checkpointingFlags());
        return Cli.start(LOGS.watch(tempDir), args.toArray(String[]::new));
    }

    private static void assertOneLineError(Cli.Result result, String expectedStart) {
        assertThat(result.exitCode()).as("exit code of %s", result).isNotZero();
        assertThat(result.stderrLines()).as("stderr of %s", result).hasSize(1);
        assertThat(result.stderrLines().get(0)).as("stderr of %s", result).startsWith("duraflow: " + expectedStart);
    }

    @Test
    void aSavepointIsTakenMovedAndRestoredWithParallelism3AndNoClaimLeavesItsFilesAlone() throws Exception {
        Path savepoints = tempDir.resolve("savepoints");
        try (ClusterClient client = new ClusterClient(cluster.address())) {
            client.submit(job("first", 2, Map.of()));
            await("a completed checkpoint of the first run").atMost(JOB_TIMEOUT).pollInterval(POLL)
                    .until(() -> client.checkpoints("first").getLatestCompletedId() > 0);

            Cli.Result savepoint = duraflow("--jobmanager", cluster.address(), "savepoint", "first",
                    savepoints.toString());
            assertThat(savepoint.exitCode()).as("%s", savepoint).isZero();
            Path firstSavepoint = Path.of(savepointOf(savepoint));
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
            Path lastSavepoint = Path.of(savepointOf(cancel));
            assertSelfContained(lastSavepoint);

            assertOneLineError(duraflow("--jobmanager", cluster.address(), "savepoint", "first",
                    savepoints.toString()), "job first already ended as CANCELED");

            Path moved = tempDir.resolve("moved").resolve("my-savepoint");
            Files.createDirectories(moved.getParent());
            Files.move(lastSavepoint, moved);
            Map<String, Long> filesBefore = filesWithSizes(moved);

            Files.createDirectories(tempDir.resolve("empty"));
            Path corrupt = tempDir.resolve("corrupt");
            Files.createDirectories(corrupt);
            Files.write(corrupt.resolve("_metadata"), new byte[] {0x44, 0x46, 0x43, 0x4d, 0, 0});
            Cli.Running missing = startFrom(cluster, "missing", 3, tempDir.resolve("nothing-here").toString());
            Cli.Running empty = startFrom(cluster, "empty", 3, tempDir.resolve("empty").toString());
            Cli.Running torn = startFrom(cluster, "corrupt", 3, corrupt.toString());
            assertOneLineError(missing.await(CLI_TIMEOUT),
                    "no savepoint or checkpoint at " + tempDir.resolve("nothing-here"));
            assertOneLineError(empty.await(CLI_TIMEOUT),
                    tempDir.resolve("empty") + " is not a savepoint or checkpoint");
            assertOneLineError(torn.await(CLI_TIMEOUT),
                    "corrupt checkpoint metadata file " + corrupt.resolve("_metadata") + ": torn");

            Cli.Result restored = runFrom(cluster, "second", 3, moved.toString());
            assertThat(restored.exitCode()).as("%s", restored).isZero();
            await("three completed checkpoints of the restored job").atMost(JOB_TIMEOUT).pollInterval(POLL)
                    .until(() -> completedOrEnded(client, "second", 3));
            JobResult second = cluster.awaitResult("second", JOB_TIMEOUT);
            assertThat(second.getStatus().getState()).as("%s", second.getStatus()).isEqualTo(JobState.JOB_FINISHED);
            assertThat(second.getStatus().getRestarts()).isZero();

            List<String> problems = ExactOutput.check(StreamingKeyedSum.readOutput(output("second")), RECORDS, KEYS);
            assertThat(problems).as("problems of the committed output of the restored job").isEmpty();
            assertThat(inProgressFiles(output("second"))).as("in-progress files of both jobs left in the output"
                    + " after the restored job finished").isEmpty();
            assertThat(filesWithSizes(moved)).as("the no-claim savepoint's files after the restored job ran")
                    .isEqualTo(filesBefore);
            assertThat(cluster.logText("jobmanager")).contains("Job second restores savepoint ")
                    .contains(" in no-claim mode");
        }
    }

    @Test
    void aRetainedCheckpointRestoredInClaimModeWithParallelism1IsDeletedOnceSubsumed() throws Exception {
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

    /**
     * One key per record, so the file sink writes all the time: {@code cancel --savepoint} leaves
     * the parts open after the savepoint (and those of a checkpoint in flight) behind; the job
     * restored from it at parallelism 3, under another job id, removes them when it starts, and
     * ends FINISHED with exact output and no in-progress file in the directory.
     */
    @Test
    void aRestoreAtAnotherParallelismRemovesTheInProgressPartsTheCancelledJobLeft() throws Exception {
        Path savepoints = tempDir.resolve("savepoints");
        Map<String, String> oneKeyPerRecord = Map.of("keys", Long.toString(RECORDS));
        try (ClusterClient client = new ClusterClient(cluster.address())) {
            SubmitJobRequest request = job("writing", 2, Map.of());
            client.submit(request.toBuilder().putAllParams(oneKeyPerRecord).build());
            await("committed parts of the running job").atMost(JOB_TIMEOUT).pollInterval(POLL)
                    .until(() -> client.checkpoints("writing").getLatestCompletedId() > 0
                            && !visibleParts(output("writing")).isEmpty());
            Cli.Result cancel = duraflow("--jobmanager", cluster.address(), "cancel", "writing", "--savepoint",
                    savepoints.toString());
            assertThat(cancel.exitCode()).as("%s", cancel).isZero();
            assertThat(cluster.awaitResult("writing", JOB_TIMEOUT).getStatus().getState())
                    .isEqualTo(JobState.JOB_CANCELED);
            assertThat(inProgressFiles(output("writing"))).as("what the cancelled job left").isNotEmpty();

            // The printed command, pasted, with another parallelism, a faster rate, an id and detached.
            List<String> pasted = new ArrayList<>(restoreCommand(cancel));
            assertThat(pasted).containsSubsequence("duraflow", "--jobmanager", cluster.address(), "run",
                    "streaming-keyed-sum", "--parallelism", "2").contains("keys=" + RECORDS,
                    "output=" + output("writing"), "execution.runtime-mode=streaming",
                    "execution.checkpointing.interval=300ms", "execution.checkpointing.dir=" + checkpoints());
            pasted.set(pasted.indexOf("--parallelism") + 1, "3");
            pasted.set(pasted.indexOf("rate=" + SLOW_RATE), "rate=" + FAST_RATE);
            pasted.addAll(List.of("--job-id", "rewriting", "--detached"));
            Cli.Result restored = duraflow(pasted.subList(1, pasted.size()).toArray(String[]::new));
            assertThat(restored.exitCode()).as("%s", restored).isZero();
            JobResult result = cluster.awaitResult("rewriting", JOB_TIMEOUT);
            assertThat(result.getStatus().getState()).as("%s", result.getStatus()).isEqualTo(JobState.JOB_FINISHED);
            List<String> problems = ExactOutput.check(StreamingKeyedSum.readOutput(output("rewriting")), RECORDS,
                    RECORDS);
            assertThat(problems).as("problems of the committed output of both jobs").isEmpty();
            assertThat(inProgressFiles(output("rewriting"))).as("in-progress files after the restored job finished")
                    .isEmpty();
        }
    }

    /**
     * A job that keeps its state on the heap moves to RocksDB through a savepoint, rescaled from 2
     * to 3: the canonical savepoint format is read by the other backend, the restored job's output
     * is exact, and its checkpoints are incremental (after the first one, which a no-claim restore
     * makes full, checkpoints reuse SST files uploaded before).
     */
    @Test
    void aHeapJobsSavepointIsRestoredOnRocksDbWithParallelism3() throws Exception {
        Path savepoints = tempDir.resolve("savepoints");
        try (ClusterClient client = new ClusterClient(cluster.address())) {
            client.submit(job("on-heap", 2, Map.of("state.backend.type", "heap")));
            await("a completed checkpoint of the heap job").atMost(JOB_TIMEOUT).pollInterval(POLL)
                    .until(() -> client.checkpoints("on-heap").getLatestCompletedId() > 0);
            Cli.Result cancel = duraflow("--jobmanager", cluster.address(), "cancel", "on-heap", "--savepoint",
                    savepoints.toString());
            assertThat(cancel.exitCode()).as("%s", cancel).isZero();
            cluster.awaitResult("on-heap", JOB_TIMEOUT);
            Path savepoint = Path.of(savepointOf(cancel));

            Cli.Result restored = runFrom(cluster, "on-rocksdb", 3, savepoint.toString(), "-D",
                    "state.backend.type=rocksdb");
            assertThat(restored.exitCode()).as("%s", restored).isZero();
            await("incremental checkpoints of the RocksDB job, or its end").atMost(JOB_TIMEOUT).pollInterval(POLL)
                    .until(() -> JobRunner.isTerminal(client.status("on-rocksdb").getState())
                            || client.checkpoints("on-rocksdb").getCheckpointsList().stream()
                                    .anyMatch(c -> c.getFilesReused() > 0));
            boolean incremental = client.checkpoints("on-rocksdb").getCheckpointsList().stream()
                    .anyMatch(c -> c.getFilesReused() > 0);
            JobResult result = cluster.awaitResult("on-rocksdb", JOB_TIMEOUT);
            assertThat(result.getStatus().getState()).as("%s", result.getStatus()).isEqualTo(JobState.JOB_FINISHED);
            assertThat(incremental).as("a checkpoint of the RocksDB job reused files of an earlier one").isTrue();
            List<String> problems = ExactOutput.check(StreamingKeyedSum.readOutput(output("on-rocksdb")), RECORDS,
                    KEYS);
            assertThat(problems).as("problems of the committed output of the job restored on RocksDB").isEmpty();
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

    /** The words of the command line the last "Restore it with: " line of a savepoint command prints. */
    private static List<String> restoreCommand(Cli.Result result) {
        List<String> words = shellWords(lastLine(result, "Restore it with: ").substring("Restore it with: ".length()));
        assertThat(words).as("restore command of %s", result).startsWith("duraflow")
                .containsSubsequence("--from-savepoint");
        assertThat(words.get(words.size() - 2)).isEqualTo("--from-savepoint");
        return words;
    }

    /** The savepoint directory the restore line of a savepoint command names. */
    private static String savepointOf(Cli.Result result) {
        List<String> words = restoreCommand(result);
        return words.get(words.size() - 1);
    }

    /** Splits a line as a POSIX shell does, for the words the restore line has: plain, or single-quoted. */
    private static List<String> shellWords(String line) {
        List<String> words = new ArrayList<>();
        StringBuilder word = new StringBuilder();
        boolean inWord = false;
        boolean quoted = false;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quoted) {
                if (c == '\'') {
                    quoted = false;
                } else {
                    word.append(c);
                }
            } else if (c == '\'') {
                quoted = true;
                inWord = true;
            } else if (c == '\\' && i + 1 < line.length()) {
                word.append(line.charAt(++i));
                inWord = true;
            } else if (c == ' ') {
                if (inWord) {
                    words.add(word.toString());
                    word.setLength(0);
                    inWord = false;
                }
            } else {
                word.append(c);
                inWord = true;
            }
        }
        assertThat(quoted).as("a closed quote in %s", line).isFalse();
        if (inWord) {
            words.add(word.toString());
        }
        return words;
    }

    private static List<Path> visibleParts(Path output) throws IOException {
        if (!Files.isDirectory(output)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(output)) {
            return files.filter(file -> file.getFileName().toString().startsWith("part-")).toList();
        }
    }

    /** The hidden in-progress files in {@code output}, with their sizes. */
    private static Map<String, Long> inProgressFiles(Path output) throws IOException {
        Map<String, Long> files = new TreeMap<>();
        filesWithSizes(output).forEach((name, size) -> {
            if (name.endsWith(".inprogress")) {
                files.put(name, size);
            }
        });
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
