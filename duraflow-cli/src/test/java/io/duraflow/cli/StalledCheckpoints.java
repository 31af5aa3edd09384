package io.duraflow.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.duraflow.cli.demo.ExactOutput;
import io.duraflow.examples.StreamingKeyedSum;
import io.duraflow.rpc.proto.CheckpointSummary;
import io.duraflow.rpc.proto.JobCheckpoints;
import io.duraflow.rpc.proto.JobResult;
import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.rpc.proto.JobState;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * What the tests that kill a process while {@link StallingKeyedSum} holds a checkpoint open
 * share ({@link StreamingCheckpointsIT}, {@link StreamingLeaderChangeIT}): the job's parameters
 * and checkpointing configuration, waiting for the stall and for what the other tasks
 * acknowledged, and the checks of the checkpoints and of the exactly-once output. Records
 * {@code i} of {@value #RECORDS} have key {@code i * 7919 mod} {@value #KEYS}, so every key gets
 * two and is emitted at its second, spread over the second half of the job: part of the output
 * is committed before the crash, part of it is replayed after the restore.
 *
 * <p>One instance per test: its files (checkpoints, output, the stall marker) are under the
 * test's directory.
 */
final class StalledCheckpoints {
    static final String STALLING = StallingKeyedSum.class.getName();
    static final long RECORDS = 200_000;
    static final long KEYS = 100_000;
    /** Records per second over both sources: the job runs for about 10 s, so checkpoints complete after a crash. */
    static final String RATE = "20000";
    /** Results subtask 0 emits before it holds a checkpoint open (it emits about 50,000 in all). */
    static final String STALL_AFTER_RESULTS = "1000";
    static final Duration JOB_TIMEOUT = Duration.ofMinutes(2);
    static final Duration POLL = Duration.ofMillis(100);
    private static final Pattern TRIGGERED = Pattern.compile("Triggering checkpoint (\\d+) of job (\\S+) ");

    private final Path dir;

    StalledCheckpoints(Path dir) {
        this.dir = dir;
    }

    /** Streaming mode, a checkpoint every 300 ms, and every non-empty piece of state in a file of its checkpoint. */
    Map<String, String> checkpointing() {
        Map<String, String> config = new LinkedHashMap<>();
        config.put("execution.runtime-mode", "streaming");
        config.put("execution.checkpointing.interval", "300ms");
        config.put("execution.checkpointing.dir", checkpoints().toString());
        config.put("state.storage.inline-threshold", "0");
        return config;
    }

    Path checkpoints() {
        return dir.resolve("checkpoints");
    }

    Path output(String jobId) {
        return dir.resolve("output").resolve(jobId);
    }

    private Path marker() {
        return dir.resolve("stalled");
    }

    Map<String, String> stallingParams(String jobId) {
        return Map.of("records", Long.toString(RECORDS), "keys", Long.toString(KEYS), "rate", RATE,
                "output", output(jobId).toString(), "stall-after-results", STALL_AFTER_RESULTS,
                "stall-marker", marker().toString());
    }

    // ------------------------------------------------------------------ the stalled checkpoint

    /** Waits until the stalling subtask holds a checkpoint open; returns which, and the pid of its TaskManager. */
    StallingKeyedSum.Stall awaitStall(Supplier<JobStatus> status) throws IOException {
        await("subtask 0 of 'Sum per key' holds a checkpoint open").atMost(JOB_TIMEOUT).pollInterval(POLL)
                .failFast("the job ended", () -> JobRunner.isTerminal(status.get().getState()))
                .until(() -> Files.exists(marker()));
        return StallingKeyedSum.Stall.read(marker());
    }

    /**
     * Waits until the tasks that can acknowledge the stalled checkpoint did (the two sources and
     * the other "Sum per key" subtask, with the sink chained to it: the checkpoint counts their
     * files) and returns the files they wrote into its {@code chk-<n>}. With {@code incremental},
     * the checkpoint also counts SST files under {@code shared/} (new or reused), so only its own
     * files in {@code chk-<n>} (MANIFEST, CURRENT, OPTIONS, the backend's metadata, operator
     * state) are awaited.
     */
    List<Path> awaitAcknowledgedFiles(String jobId, long stalled, Supplier<JobCheckpoints> checkpoints,
            boolean incremental) {
        Path directory = checkpoints().resolve(jobId).resolve("chk-" + stalled);
        return await("the other tasks' state files of checkpoint " + stalled).atMost(JOB_TIMEOUT).pollInterval(POLL)
                .until(() -> {
                    CheckpointSummary summary = summary(checkpoints.get(), stalled);
                    List<Path> files = regularFiles(directory);
                    if (summary == null || summary.getFiles() < 3) {
                        return List.<Path>of();
                    }
                    return files.size() >= (incremental ? 3 : summary.getFiles()) ? files : List.<Path>of();
                }, files -> !files.isEmpty());
    }

    /**
     * Waits until the output has committed lines (those of checkpoint n-1 at least: the other
     * subtask's sink commits them when it learns that the checkpoint completed); returns how many.
     */
    int awaitCommittedOutput(String jobId) {
        return await("lines committed to " + output(jobId)).atMost(Duration.ofSeconds(30)).pollInterval(POLL)
                .until(() -> StreamingKeyedSum.readOutput(output(jobId)).size(), lines -> lines > 0);
    }

    /**
     * Checkpoint n is in progress, an earlier one completed, nothing later was started; returns
     * the latest completed (usually n-1; a final checkpoint that a finishing source missed is
     * aborted and skipped).
     */
    static long assertHeldOpen(JobCheckpoints checkpoints, long stalled) {
        CheckpointSummary summary = summary(checkpoints, stalled);
        assertThat(summary).as("checkpoint %d in %s", stalled, checkpoints).isNotNull();
        assertThat(summary.getStatus()).as("checkpoint %d at the kill", stalled).isEqualTo("IN_PROGRESS");
        assertThat(checkpoints.getLatestCompletedId()).as("latest completed at the kill").isBetween(1L, stalled - 1);
        assertThat(checkpoints.getCheckpointsList()).as("checkpoints at the kill")
                .allMatch(c -> c.getCheckpointId() <= stalled);
        return checkpoints.getLatestCompletedId();
    }

    /** Waits until a checkpoint after the stalled one completed; returns the statistics then. */
    static JobCheckpoints awaitCheckpointAfter(long stalled, Supplier<JobCheckpoints> checkpoints) {
        return await("a checkpoint after " + stalled + " completes").atMost(JOB_TIMEOUT).pollInterval(POLL)
                .ignoreException(CliException.class)
                .until(checkpoints::get, c -> c.getCheckpointsList().stream()
                        .anyMatch(s -> s.getCheckpointId() > stalled && s.getStatus().equals("COMPLETED")));
    }

    /**
     * The aborted checkpoint's files are gone and its directory holds no file (a task that was
     * still writing may re-create the directory; the next completion deletes it), while the job
     * still runs: once it ended, the retention deletes every checkpoint directory anyway.
     */
    void awaitNoFilesOfTheAbortedCheckpoint(String jobId, long stalled, List<Path> acknowledged,
            Supplier<JobStatus> status) {
        Path directory = checkpoints().resolve(jobId).resolve("chk-" + stalled);
        await("no file left under " + directory + " while the job runs").atMost(Duration.ofSeconds(30))
                .pollInterval(POLL)
                .failFast("the job ended first", () -> JobRunner.isTerminal(status.get().getState()))
                .until(() -> regularFiles(directory).isEmpty());
        assertThat(acknowledged).as("files the tasks wrote for checkpoint %d", stalled).noneMatch(Files::exists);
    }

    // ------------------------------------------------------------------ checks

    static void assertFinished(JobResult result, int minRestarts) {
        JobStatus status = result.getStatus();
        assertThat(status.getState()).as("state of %s, failure '%s'", status.getJobId(), status.getFailure())
                .isEqualTo(JobState.JOB_FINISHED);
        if (minRestarts == 0) {
            assertThat(status.getRestarts()).as("restarts of %s", status.getJobId()).isZero();
        } else {
            assertThat(status.getRestarts()).as("restarts of %s", status.getJobId()).isGreaterThanOrEqualTo(minRestarts);
        }
    }

    /** Every (key, sum, count) of the plain loop committed exactly once, nothing else, no in-progress file. */
    void assertExactlyOnceOutput(String jobId) throws IOException {
        Path output = output(jobId);
        List<String> problems = ExactOutput.check(StreamingKeyedSum.readOutput(output), RECORDS, KEYS);
        assertThat(problems).as("problems of the committed output in %s", output).isEmpty();
        List<String> names;
        try (Stream<Path> files = Files.list(output)) {
            names = files.map(f -> f.getFileName().toString()).sorted().toList();
        }
        assertThat(names).as("files in %s", output).isNotEmpty().allMatch(name -> name.startsWith("part-"));
    }

    /** Checkpoint ids in the statistics (oldest first, in progress last) strictly increase. */
    static void assertIdsIncrease(JobCheckpoints checkpoints) {
        assertThat(checkpoints.getCheckpointsList().stream().map(CheckpointSummary::getCheckpointId).toList())
                .as("checkpoint ids in %s", checkpoints).isSorted().doesNotHaveDuplicates();
    }

    static void awaitGone(Path path, String what) {
        await(what + " deleted: " + path).atMost(Duration.ofSeconds(30)).pollInterval(POLL)
                .until(() -> !Files.exists(path));
    }

    // ------------------------------------------------------------------ reading what the processes left

    private static CheckpointSummary summary(JobCheckpoints checkpoints, long id) {
        return checkpoints.getCheckpointsList().stream().filter(c -> c.getCheckpointId() == id).findFirst()
                .orElse(null);
    }

    static List<Path> regularFiles(Path directory) throws IOException {
        if (!Files.isDirectory(directory)) {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(directory)) {
            return files.filter(Files::isRegularFile).toList();
        } catch (UncheckedIOException e) {
            return List.of(directory.resolve("(changing while listed)"));
        }
    }

    /** The ids of the pointers in the HA completed-checkpoint store of the job ({@code <ha job dir>/checkpoints}). */
    static List<Long> completedStore(Path jobHaDirectory) throws IOException {
        Path pointers = jobHaDirectory.resolve("checkpoints");
        if (!Files.isDirectory(pointers)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(pointers)) {
            return files.map(p -> p.getFileName().toString()).filter(name -> name.matches("checkpoint-\\d{19}"))
                    .map(name -> Long.parseLong(name.substring("checkpoint-".length()))).sorted().toList();
        }
    }

    /** The JobManagers' log lines, each starting with its time of day (HH:mm:ss.SSS), merged in time order. */
    static List<String> jobManagerLogs(HaCluster cluster) {
        List<String> lines = new ArrayList<>();
        for (HaCluster.JobManager jm : cluster.jobManagers()) {
            cluster.logText(jm.name).lines().filter(line -> line.matches("\\d\\d:\\d\\d:\\d\\d\\.\\d{3} .*"))
                    .forEach(lines::add);
        }
        lines.sort(java.util.Comparator.comparing(line -> line.substring(0, 12)));
        return lines;
    }

    /** Ids of the job's checkpoints the log lines say were triggered, in their order. */
    static List<Long> triggeredIds(List<String> lines, String jobId) {
        List<Long> ids = new ArrayList<>();
        for (String line : lines) {
            Matcher matcher = TRIGGERED.matcher(line);
            if (matcher.find() && matcher.group(2).equals(jobId)) {
                ids.add(Long.parseLong(matcher.group(1)));
            }
        }
        return ids;
    }

    /** Ids of the job's checkpoints a JobManager log says completed, in log order. */
    static List<Long> completedIds(String log, String jobId) {
        List<Long> ids = new ArrayList<>();
        Matcher matcher = Pattern.compile("Completed checkpoint (\\d+) of job " + Pattern.quote(jobId) + " ")
                .matcher(log);
        while (matcher.find()) {
            ids.add(Long.parseLong(matcher.group(1)));
        }
        return ids;
    }

    /** The checkpoint the job's tasks restored first, as the JobManager logged it; -1 if none. */
    static long firstRestore(String log, String jobId) {
        Matcher matcher = Pattern.compile("Job " + Pattern.quote(jobId) + ": tasks restore checkpoint (\\d+) ")
                .matcher(log);
        return matcher.find() ? Long.parseLong(matcher.group(1)) : -1;
    }
}
