package io.duraflow.cli;

import static io.duraflow.cli.ExactResults.assertSameEntries;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.duraflow.examples.WordCount;
import io.duraflow.rpc.proto.JobResult;
import io.duraflow.rpc.proto.JobState;
import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.rpc.proto.VertexStatus;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGKILLs a TaskManager in the middle of a WordCount on 1 JobManager and 3 TaskManagers with one
 * slot each (so every task has a TaskManager of its own, and the test knows which process runs
 * what), and checks that the job still finishes with exactly the right counts.
 *
 * <p>A source task's TaskManager killed while the task reads is a property of the whole-cluster
 * simulation ({@code ClusterSimulationBatchTest} in the runtime's tests), over many seeds.
 */
class TaskManagerFailureIT {
    private static final String WORDCOUNT = WordCount.class.getName();
    private static final String SOURCE = "Generate words";
    private static final String COUNT = "Count";
    private static final Duration JOB_TIMEOUT = Duration.ofSeconds(90);

    @RegisterExtension
    static final LogsOnFailure LOGS = new LogsOnFailure();

    @TempDir
    Path tempDir;

    private TestCluster cluster;

    private TestCluster startCluster(Map<String, String> overrides) throws IOException {
        Map<String, String> config = new HashMap<>(Map.of("taskmanager.slots", "1", "heartbeat.interval", "500ms",
                "heartbeat.timeout", "2s", "restart-strategy.fixed-delay.delay", "200ms"));
        config.putAll(overrides);
        cluster = TestCluster.start(LOGS.watch(tempDir.resolve("cluster")), 3, config, ChildJvm.TASKMANAGER_C2_OPTIONS);
        return cluster;
    }

    @AfterEach
    void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    /**
     * The TaskManager holding a finished source task's partition dies while the counting task
     * still needs it: the JobManager must run that source task again. The counts go to part
     * files, so this also checks that a re-run sink task does not leave a duplicated part.
     */
    @Test
    void killTaskManagerHoldingAFinishedPartitionWhileItIsConsumed() throws Exception {
        startCluster(Map.of());
        long words = 4_500_000;
        long distinct = 2_000_000;
        Path output = tempDir.resolve("output");
        Map<String, String> params = Map.of("words", Long.toString(words), "distinct", Long.toString(distinct),
                "output", output.toString());
        // 3 source tasks, one per TaskManager; the ~90 MB they write make 2 counting tasks, which the
        // JobManager puts into the first free slots: one TaskManager then only holds a partition.
        String jobId = cluster.submit(WORDCOUNT, params, 3);

        await("sources finished, counting started").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20))
                .until(() -> {
                    JobStatus status = cluster.status(jobId);
                    VertexStatus source = TestCluster.vertex(status, SOURCE);
                    VertexStatus count = TestCluster.vertex(status, COUNT);
                    assertThat(count.getFinished()).as("counting tasks finished too early to test anything").isZero();
                    return source.getFinished() == source.getParallelism() && count.getRunning() > 0
                            && runningTasksEverywhere(jobId, 1) == count.getRunning();
                });
        // Prefer a TaskManager that ran a source task but runs no counting task: then only its partition is lost.
        List<Integer> producers = new ArrayList<>();
        for (int i = 0; i < cluster.taskManagerCount(); i++) {
            if (finishedTasks(i, jobId, 0) > 0) {
                producers.add(i);
            }
        }
        assertThat(producers).as("TaskManagers that ran a source task").isNotEmpty();
        int victim = producers.stream().filter(i -> runningTasks(i, jobId, 1).isEmpty()).findFirst()
                .orElse(producers.get(0));
        boolean victimRanCounting = !runningTasks(victim, jobId, 1).isEmpty();
        cluster.killTaskManager(victim);

        JobResult result = cluster.awaitResult(jobId, JOB_TIMEOUT);

        JobStatus status = assertFinishedAfterRestart(result, words);
        assertThat(TestCluster.vertex(status, SOURCE).getAttempts())
                .as("source task runs (the lost partition is produced again; victim also ran a counting task: %s)",
                        victimRanCounting)
                .isGreaterThanOrEqualTo(4);
        assertSameEntries("counts in " + output, readPartFiles(output), expectedCounts(words, distinct));
        cluster.awaitTaskManagers(2);
    }

    /**
     * A TaskManager dies while idle, and a job comes before the JobManager noticed (heartbeat
     * timeout): the JobManager deploys a task to the dead TaskManager's free slot. It should find
     * out and run the task elsewhere, and the job finish. Its broken connection would tell the
     * JobManager within a fraction of a second, before the job comes; turned off here
     * ({@code heartbeat.suspect-probe.attempts: 0}) so that the deployment is what finds out.
     */
    @Test
    void killIdleTaskManagerJustBeforeASubmission() throws Exception {
        startCluster(Map.of("heartbeat.timeout", "5s", "restart-strategy.fixed-delay.delay", "100ms",
                "heartbeat.suspect-probe.attempts", "0"));
        long words = 30_000_000;
        long distinct = 10_000;
        Map<String, String> params = Map.of("words", Long.toString(words), "distinct", Long.toString(distinct));
        cluster.killTaskManager(2);

        // 3 source tasks for 3 slots, as far as the JobManager knows: one goes to the dead TaskManager,
        // whose slot stays the only free one for the seconds the other two source tasks run.
        String jobId = cluster.submit(WORDCOUNT, params, 3);
        JobResult result = cluster.awaitResult(jobId, JOB_TIMEOUT);

        assertFinishedAfterRestart(result, words);
        assertSameEntries("word counts", counts(result, params, 3), expectedCounts(words, distinct));
    }

    private JobStatus assertFinishedAfterRestart(JobResult result, long words) {
        JobStatus status = result.getStatus();
        assertThat(status.getState()).as("state, failure '%s'", status.getFailure()).isEqualTo(JobState.JOB_FINISHED);
        assertThat(status.getRestarts()).as("restarts").isGreaterThanOrEqualTo(1);
        VertexStatus source = TestCluster.vertex(status, SOURCE);
        assertThat(source.getFinished()).isEqualTo(source.getParallelism());
        // Only the final run of each task counts: every generated word read exactly once.
        assertThat(source.getRecordsIn()).as("words read by the final source task runs").isEqualTo(words);
        System.out.printf("%s: %d restarts; task runs: %s; what the JobManager saw:%n%s%n", status.getJobId(),
                status.getRestarts(), status.getVerticesList().stream().map(v -> v.getName() + " " + v.getAttempts()
                        + "/" + v.getParallelism()).toList(),
                cluster.logText("jobmanager").lines().filter(line -> line.contains(" WARN ")
                        || line.contains("will run again") || line.contains("parallelism")).map(line -> "  " + line)
                        .reduce((a, b) -> a + "\n" + b).orElse(""));
        return status;
    }

    private static Map<String, Long> counts(JobResult result, Map<String, String> params, int parallelism) {
        return ExactResults.toMap(TestCluster.decode(result, WORDCOUNT, params, parallelism).get(WordCount.RESULT));
    }

    /** Word i is "w" + (i * 7919 % distinct): counted per residue, which is quick even for 40 M words. */
    private static Map<String, Long> expectedCounts(long words, long distinct) {
        long[] perResidue = new long[(int) distinct];
        for (long i = 0; i < words; i++) {
            perResidue[(int) (i * 7919 % distinct)]++;
        }
        for (long i = 0; i < Math.min(words, 1000); i++) {
            assertThat(WordCount.word(i, distinct)).isEqualTo("w" + (i * 7919 % distinct));
        }
        Map<String, Long> expected = new HashMap<>();
        for (int residue = 0; residue < perResidue.length; residue++) {
            if (perResidue[residue] > 0) {
                expected.put("w" + residue, perResidue[residue]);
            }
        }
        return expected;
    }

    /** Attempts of the vertex's tasks that TaskManager {@code index} logged as started but not ended. */
    private List<String> runningTasks(int index, String jobId, int vertex) {
        String log = cluster.taskManagerLog(index);
        Pattern started = Pattern.compile("Task (" + Pattern.quote(jobId) + "/v" + vertex + "/\\d+#\\d+) .* starting");
        List<String> running = new ArrayList<>();
        started.matcher(log).results().map(m -> m.group(1)).forEach(attempt -> {
            if (!Pattern.compile("Task " + Pattern.quote(attempt) + " .* (finished|failed|cancelled)").matcher(log)
                    .find()) {
                running.add(attempt);
            }
        });
        return running;
    }

    private int runningTasksEverywhere(String jobId, int vertex) {
        int running = 0;
        for (int i = 0; i < cluster.taskManagerCount(); i++) {
            running += runningTasks(i, jobId, vertex).size();
        }
        return running;
    }

    private long finishedTasks(int index, String jobId, int vertex) {
        return Pattern.compile("Task " + Pattern.quote(jobId) + "/v" + vertex + "/\\d+#\\d+ .* finished")
                .matcher(cluster.taskManagerLog(index)).results().count();
    }

    /** word -> count from the part files; hidden files (in-progress output of killed attempts) are ignored. */
    private static Map<String, Long> readPartFiles(Path output) throws IOException {
        List<Path> parts;
        try (Stream<Path> files = Files.list(output)) {
            parts = files.filter(f -> !f.getFileName().toString().startsWith(".")).sorted().toList();
        }
        assertThat(parts).as("part files in %s", output).isNotEmpty()
                .allMatch(f -> f.getFileName().toString().matches("part-\\d+"));
        Map<String, Long> counts = new HashMap<>();
        for (Path part : parts) {
            try (Stream<String> lines = Files.lines(part, StandardCharsets.UTF_8)) {
                lines.forEach(line -> {
                    int tab = line.indexOf('\t');
                    Long previous = counts.put(line.substring(0, tab), Long.parseLong(line.substring(tab + 1)));
                    if (previous != null) {
                        throw new AssertionError("'" + line.substring(0, tab) + "' written twice in " + output);
                    }
                });
            }
        }
        return counts;
    }
}
