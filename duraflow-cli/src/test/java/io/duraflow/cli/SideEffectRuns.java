package io.duraflow.cli;

import static io.duraflow.cli.ExactResults.assertSameEntries;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.duraflow.rpc.proto.ClusterOverview;
import io.duraflow.rpc.proto.JobResult;
import io.duraflow.rpc.proto.JobState;
import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.rpc.proto.VertexStatus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.core.ConditionTimeoutException;

/**
 * What the JobManager failover tests that run {@link SideEffectJob} on an {@link HaCluster}
 * share ({@link JobResultStoreFailoverIT}, {@link ClientFailoverIT}): the job's parameters and
 * exact sums, the marker lines its sink tasks leave, and the checks that a job's outcome is
 * right after a failover:
 * <ul>
 *   <li>the exact result (sums per key),
 *   <li>exactly one result entry, CLEAN in the end, and "result stored" logged once,
 *   <li>cleanup complete: no job graph, no job directory, no partitions on the TaskManagers,
 *       every slot free,
 *   <li>how often the job's side effect happened: the lines its sink tasks append to a marker file.
 * </ul>
 */
final class SideEffectRuns {
    static final String JOB = SideEffectJob.class.getName();
    static final int PARALLELISM = 2;
    static final int SINKS = 2;
    static final long NUMBERS = 20_000;
    static final long KEYS = 10;
    static final Duration JOB_TIMEOUT = Duration.ofSeconds(60);
    static final Duration CLI_TIMEOUT = Duration.ofSeconds(90);
    static final Duration FAILPOINT_TIMEOUT = Duration.ofSeconds(30);

    private static final Pattern MARKER_LINE = Pattern.compile("subtask=(\\d+) attempt=(\\d+)");

    private SideEffectRuns() {}

    /**
     * The job's parameters: sums of {@code numbers} numbers over {@link #KEYS} keys, {@link #SINKS}
     * sink tasks, and a pause of {@code pauseMs} every {@value SideEffectJob#PAUSE_EVERY} numbers
     * (none if 0), which makes the sources run long enough to kill the leader while they do.
     */
    static Map<String, String> params(Path marker, long numbers, long pauseMs) {
        Map<String, String> params = new LinkedHashMap<>();
        params.put("marker", marker.toString());
        params.put("numbers", Long.toString(numbers));
        params.put("keys", Long.toString(KEYS));
        params.put("sinks", Integer.toString(SINKS));
        if (pauseMs > 0) {
            params.put("pause-ms", Long.toString(pauseMs));
        }
        return params;
    }

    /** 'duraflow run' of the job with these parameters, without options that find the cluster. */
    static List<String> runCommand(String jobId, Map<String, String> params) {
        List<String> run = new ArrayList<>(List.of("run", JOB, "--job-id", jobId, "--parallelism",
                Integer.toString(PARALLELISM)));
        params.forEach((k, v) -> run.addAll(List.of("--param", k + "=" + v)));
        return run;
    }

    /** The line 'duraflow result' prints for key {@code key}: "(key,sum)". */
    static String expectedLine(long key, Map<String, String> params) {
        long numbers = Long.parseLong(params.get("numbers"));
        return "(" + key + "," + SideEffectJob.expectedSums(numbers, KEYS).get(key) + ")";
    }

    static void assertFinishedWithExactSums(JobResult result, Map<String, String> params) {
        JobStatus status = result.getStatus();
        assertThat(status.getState()).as("state, failure '%s'", status.getFailure()).isEqualTo(JobState.JOB_FINISHED);
        long numbers = Long.parseLong(params.get("numbers"));
        Map<Long, Long> sums = ExactResults.toMap(
                TestCluster.decode(result, JOB, params, PARALLELISM).get(SideEffectJob.RESULT));
        assertSameEntries("sums of job " + status.getJobId(), sums, SideEffectJob.expectedSums(numbers, KEYS));
    }

    /** Waits until the job's sources ran for a while at the leader and no sink task has started yet. */
    static void awaitSourcesRunningWithoutSinks(HaCluster cluster, String jobId) {
        await("the job's sources run for a while").pollDelay(Duration.ofMillis(1000)).atMost(JOB_TIMEOUT)
                .pollInterval(Duration.ofMillis(50)).ignoreException(CliException.class)
                .until(() -> TestCluster.vertex(cluster.status(jobId), SideEffectJob.SOURCE).getRunning() > 0);
        JobStatus status = cluster.status(jobId);
        VertexStatus sums = TestCluster.vertex(status, "Sum");
        assertThat(sums.getRunning() + sums.getFinished())
                .as("sink tasks started already: %s", JobRunner.progressLine(status)).isZero();
    }

    /**
     * Whether a cluster tests share is fit for the next one: a leader, both TaskManagers alive and
     * registered with every slot free, no job running.
     */
    static boolean fitForATest(HaCluster cluster) {
        try {
            await("the shared cluster is idle").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100))
                    .ignoreException(CliException.class).until(() -> {
                        ClusterOverview overview = cluster.overview();
                        return cluster.leader().isPresent() && cluster.liveTaskManagers().size() == 2
                                && overview.getTaskManagersCount() == 2 && overview.getRunningJobs() == 0
                                && overview.getTaskManagersList().stream()
                                        .allMatch(tm -> tm.getFreeSlots() == tm.getSlots());
                    });
            return true;
        } catch (ConditionTimeoutException e) {
            return false;
        }
    }

    /** Creates the job's directory in the HA storage (where per-job data lives), so cleanup has something to delete. */
    static Path createJobDirectory(HaCluster cluster, String jobId) throws IOException {
        Path probe = cluster.jobDirectory(jobId).resolve("probe");
        Files.createDirectories(probe.getParent());
        Files.writeString(probe, "deleted by the job's cleanup");
        return probe;
    }

    /**
     * Waits until the job's cleanup is complete: exactly one result entry, CLEAN; no job graph;
     * no job directory; no partition files of the job on any TaskManager; every slot free.
     */
    static void assertCleanedUp(HaCluster cluster, String jobId, Path probe) {
        try {
            await("cleanup of job " + jobId).atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
                    .until(() -> cluster.resultFiles(jobId).equals(List.of(jobId + ".clean.json"))
                            && !Files.exists(cluster.jobGraphFile(jobId)) && !Files.exists(probe.getParent())
                            && partitionFiles(cluster, jobId).isEmpty() && allSlotsFree(cluster));
        } catch (ConditionTimeoutException e) {
            String state;
            try {
                state = "result files " + cluster.resultFiles(jobId) + ", job graph "
                        + Files.exists(cluster.jobGraphFile(jobId)) + ", job directory "
                        + Files.exists(probe.getParent()) + ", partition files " + partitionFiles(cluster, jobId)
                        + ", TaskManagers at the leader " + cluster.overview().getTaskManagersList();
            } catch (IOException io) {
                state = io.toString();
            }
            throw new AssertionError("cleanup of job " + jobId + " incomplete: " + state, e);
        }
    }

    /** Every slot of every TaskManager registered at the leader is free (no job holds one). */
    private static boolean allSlotsFree(HaCluster cluster) {
        ClusterOverview overview = cluster.overview();
        return overview.getRunningJobs() == 0 && overview.getTaskManagersList().stream()
                .allMatch(tm -> tm.getFreeSlots() == tm.getSlots());
    }

    private static List<Path> partitionFiles(HaCluster cluster, String jobId) throws IOException {
        List<Path> files = new ArrayList<>();
        for (int i = 0; i < cluster.taskManagerCount(); i++) {
            files.addAll(cluster.partitionFiles(i, jobId));
        }
        return files;
    }

    /** Exactly one JobManager stored a result for the job, once: {@code jm}. */
    static void assertResultStoredOnceBy(HaCluster cluster, HaCluster.JobManager jm, String jobId) {
        assertThat(cluster.jobManagerLines("Job " + jobId + " ended as")).as("results stored").hasSize(1)
                .allMatch(line -> line.startsWith(jm.name + ": ") && line.contains("result stored"));
    }

    /** {@code jm} did not run the job (it only recovered its result). */
    static void assertNotRunBy(HaCluster cluster, HaCluster.JobManager jm, String jobId) {
        assertThat(cluster.logText(jm.name)).as("%s's log", jm.name).doesNotContain("Recovering job " + jobId)
                .doesNotContain("Job " + jobId + " (SideEffectJob) running");
    }

    /** Each of the {@link #SINKS} sink subtasks wrote {@code runs} marker lines, over all runs and attempts. */
    static void assertMarkerLinesPerSink(Path marker, int runs, String why) throws IOException {
        assertThat(linesPerSubtask(marker)).as("marker lines per sink subtask: %s", why).hasSize(SINKS)
                .allSatisfy((subtask, count) -> assertThat(count).isEqualTo(runs));
    }

    /** Sink subtask -> marker lines it wrote, over all runs and attempts. */
    private static Map<Integer, Integer> linesPerSubtask(Path marker) throws IOException {
        Map<Integer, Integer> lines = new TreeMap<>();
        for (String line : SideEffectJob.markerLines(marker)) {
            Matcher matcher = MARKER_LINE.matcher(line);
            assertThat(matcher.matches()).as("marker line '%s'", line).isTrue();
            lines.merge(Integer.parseInt(matcher.group(1)), 1, Integer::sum);
        }
        return lines;
    }

    /** How many lines of {@code text} contain {@code fragment}. */
    static int count(String text, String fragment) {
        return Collections.frequency(text.lines().map(line -> line.contains(fragment)).toList(), true);
    }

    static String[] concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all.toArray(String[]::new);
    }
}
