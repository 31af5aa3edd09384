package io.duraflow.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.duraflow.examples.StreamingKeyedSum;
import io.duraflow.examples.WordCount;
import io.duraflow.metrics.PrometheusText;
import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.rpc.proto.SubmitJobRequest;
import io.duraflow.rpc.proto.VertexStatus;
import java.io.IOException;
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
 * What a user sees of a running streaming job, against real processes: one JobManager and one
 * TaskManager with 4 slots and {@code metrics.prometheus.port=0}, which the tests share. Each test
 * runs throttled {@link StreamingKeyedSum} jobs of its own and cancels them before it ends.
 * <ul>
 *   <li>{@code duraflow status ID}: every vertex shows its records per second and busy /
 *       backpressured / idle time from the heartbeats;
 *   <li>{@code duraflow checkpoints ID}: the table of a job that takes checkpoints, and the
 *       one-line errors for an unknown job and for jobs that ended (their JobMaster is gone);
 *   <li>the Prometheus endpoints: a job with checkpoints into merged files runs, both endpoints
 *       are scraped over HTTP on loopback and read with the strict {@link PrometheusText} parser,
 *       and the figures move: records grow, checkpoints complete, and once the job is cancelled its
 *       result shows in the results and the job result store's entries.
 * </ul>
 */
class RunningJobViewsIT {
    private static final Duration TIMEOUT = Duration.ofMinutes(2);
    private static final Duration CLI_TIMEOUT = Duration.ofSeconds(90);
    private static final Pattern ENDPOINT = Pattern.compile("Prometheus metrics of this (\\w+) at (http://\\S+)");

    @RegisterExtension
    static final LogsOnFailure LOGS = new LogsOnFailure();

    @TempDir
    static Path sharedDir;

    @TempDir
    Path tempDir;

    private static TestCluster cluster;

    @BeforeAll
    static void startCluster() throws IOException {
        cluster = TestCluster.start(LOGS.watch(sharedDir.resolve("cluster")), 1, Map.of("metrics.prometheus.port",
                "0", "taskmanager.slots", "4"));
    }

    @AfterAll
    static void stopCluster() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    private Cli.Result duraflow(String... args) throws IOException, InterruptedException {
        return Cli.run(LOGS.watch(tempDir), CLI_TIMEOUT, args);
    }

    private static void assertOneLineError(Cli.Result result, String expected) {
        assertThat(result.exitCode()).as("exit code of %s", result).isNotZero();
        assertThat(result.stderrLines()).as("stderr of %s", result).containsExactly("duraflow: " + expected);
    }

    @Test
    void aRunningStreamingJobShowsRatesPerVertex() throws Exception {
        try (ClusterClient client = new ClusterClient(cluster.address())) {
            String jobId = client.submit(SubmitJobRequest.newBuilder().setJobId("throttled-sum")
                    .setJobClass(StreamingKeyedSum.class.getName()).putParams("records", "0")
                    .putParams("rate", "2000").putParams("keys", "1000").setParallelism(1).build()).getJobId();

            JobStatus status = await("rates of every vertex").atMost(TIMEOUT).pollInterval(Duration.ofMillis(200))
                    .until(() -> client.status(jobId), s -> !s.getVerticesList().isEmpty()
                            && s.getVerticesList().stream().allMatch(VertexStatus::hasRates));

            for (VertexStatus vertex : status.getVerticesList()) {
                var rates = vertex.getRates();
                assertThat(rates.getSubtasks()).as("%s", vertex).isEqualTo(1);
                assertThat(rates.getBusyMsPerSecond() + rates.getBackpressuredMsPerSecond()
                        + rates.getIdleMsPerSecond()).as("%s", vertex).isBetween(999.0, 1001.0);
            }
            assertThat(status.getVertices(0).getRates().getRecordsOutPerSecond()).as("the throttled source: %s", status)
                    .isBetween(200.0, 20_000.0);
            assertThat(status.getVertices(0).getRates().getIdleMsPerSecond()).as("a throttled source mostly waits")
                    .isGreaterThan(300.0);

            Cli.Result shown = duraflow("--jobmanager", cluster.address(), "status", jobId);

            assertThat(shown.exitCode()).as("%s", shown).isZero();
            assertThat(shown.stdout()).as("%s", shown).containsPattern(
                    "(?m)^    [\\d,]+ in/s, [\\d,]+ out/s, busy \\d+%, backpressured \\d+%, idle \\d+% \\(1 subtask\\)$");
            client.cancel(jobId);
            cluster.awaitResult(jobId, TIMEOUT);
        }
    }

    @Test
    void aRunningStreamingJobShowsItsCheckpointsAndEndedOrUnknownJobsAreOneLineErrors() throws Exception {
        try (ClusterClient client = new ClusterClient(cluster.address())) {
            String streaming = client.submit(SubmitJobRequest.newBuilder().setJobId("endless-sum")
                    .setJobClass(StreamingKeyedSum.class.getName()).putParams("records", "0")
                    .putParams("rate", "2000").putParams("keys", "1000").setParallelism(1)
                    .putConfig("execution.checkpointing.interval", "300ms")
                    .putConfig("execution.checkpointing.dir", tempDir.resolve("checkpoints").toString())
                    .build()).getJobId();
            await("two completed checkpoints").atMost(TIMEOUT).pollInterval(Duration.ofMillis(200))
                    .until(() -> client.checkpoints(streaming).getCompleted() >= 2);

            Cli.Result table = duraflow("--jobmanager", cluster.address(), "checkpoints", streaming);

            assertThat(table.exitCode()).as("%s", table).isZero();
            assertThat(table.stdout().lines().toList()).as("%s", table).satisfies(lines -> {
                assertThat(lines.get(0)).startsWith("Job endless-sum: checkpoint interval 300 ms, ");
                assertThat(lines.get(1)).startsWith("  latest completed: ").contains("_metadata");
                assertThat(lines.get(2)).isEqualTo("  restored from:    nothing (started from empty state)");
                assertThat(lines.get(3)).startsWith("ID     KIND       STATUS");
                assertThat(lines.subList(4, lines.size())).anyMatch(line -> line.matches(
                        "\\d+ +CHECKPOINT completed +\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d .*"));
            });

            assertOneLineError(duraflow("--jobmanager", cluster.address(), "checkpoints", "no-such-job"),
                    "no job with id 'no-such-job'; 'duraflow list' shows the jobs");

            client.cancel(streaming);
            cluster.awaitResult(streaming, TIMEOUT);
            assertOneLineError(duraflow("--jobmanager", cluster.address(), "checkpoints", streaming),
                    "job endless-sum has ended (CANCELED): its checkpoint statistics ended with it;"
                            + " 'duraflow result endless-sum' shows its result");

            String batch = client.submit(SubmitJobRequest.newBuilder().setJobId("words")
                    .setJobClass(WordCount.class.getName()).putParams("words", "100").build()).getJobId();
            cluster.awaitResult(batch, TIMEOUT);
            assertOneLineError(duraflow("--jobmanager", cluster.address(), "checkpoints", batch),
                    "job words has ended (FINISHED): its checkpoint statistics ended with it;"
                            + " 'duraflow result words' shows its result");
        }
    }

    @Test
    void jobManagerAndTaskManagerEndpointsShowARunningJob() throws Exception {
        try (ClusterClient client = new ClusterClient(cluster.address())) {
            String jobManager = endpoint(cluster.log("jobmanager"), "jobmanager");
            String taskManager = endpoint(cluster.log("taskmanager-0"), "taskmanager");
            Map<String, String> config = new LinkedHashMap<>();
            config.put("execution.runtime-mode", "streaming");
            config.put("execution.checkpointing.interval", "300ms");
            config.put("execution.checkpointing.dir", tempDir.resolve("checkpoints").toString());
            config.put("execution.checkpointing.file-merging.enabled", "true");
            config.put("state.storage.inline-threshold", "0");
            String jobId = client.submit(SubmitJobRequest.newBuilder().setJobId("metered-sum")
                    .setJobClass(StreamingKeyedSum.class.getName()).putParams("records", "0")
                    .putParams("rate", "2000").putParams("keys", "1000").putAllConfig(config).setParallelism(2)
                    .build()).getJobId();

            Map<String, PrometheusText.Family> first = await("a running job with records and a checkpoint")
                    .atMost(TIMEOUT).pollInterval(Duration.ofMillis(200))
                    .until(() -> scrape(jobManager), m -> value(m, "duraflow_job_status", "job_id", jobId, "status",
                            "running") == 1 && value(m, "duraflow_vertex_records_out_total", "job_id", jobId) > 0
                            && value(m, "duraflow_job_checkpoints_completed_total", "job_id", jobId) >= 1);
            assertThat(value(first, "duraflow_jobmanager_is_leader")).isEqualTo(1);
            assertThat(value(first, "duraflow_cluster_taskmanagers")).isEqualTo(1);
            assertThat(first.get("duraflow_job_status").matching("job_id", jobId)).as("one series per status")
                    .hasSize(6).allSatisfy(s -> assertThat(s.labels().get("job_name")).isNotBlank());
            assertThat(first.get("duraflow_vertex_records_out_total").matching("job_id", jobId))
                    .allSatisfy(s -> assertThat(s.labels()).containsOnlyKeys("job_id", "job_name", "vertex_id",
                            "vertex"));
            assertThat(value(first, "duraflow_job_uptime_seconds", "job_id", jobId)).isPositive();
            assertThat(value(first, "duraflow_job_last_checkpoint_size_bytes", "job_id", jobId)).isPositive();
            assertThat(first.get("duraflow_job_checkpoints_declined_total").matching("job_id", jobId))
                    .extracting(s -> s.labels().get("kind")).containsExactlyInAnyOrder("soft", "hard");
            assertThat(first.get("duraflow_job_checkpoint_duration_seconds").type()).isEqualTo("histogram");
            assertThat(first).containsKeys("jvm_memory_used_bytes", "jvm_threads_current");
            assertConventions(first);

            double recordsOut = value(first, "duraflow_vertex_records_out_total", "job_id", jobId);
            double checkpoints = value(first, "duraflow_job_checkpoints_completed_total", "job_id", jobId);
            await("records and checkpoints grow on the JobManager").atMost(TIMEOUT)
                    .pollInterval(Duration.ofMillis(200)).until(() -> scrape(jobManager), m ->
                            value(m, "duraflow_vertex_records_out_total", "job_id", jobId) > recordsOut
                                    && value(m, "duraflow_job_checkpoints_completed_total", "job_id", jobId)
                                    > checkpoints);

            Map<String, PrometheusText.Family> tm = await("the TaskManager's tasks with records").atMost(TIMEOUT)
                    .pollInterval(Duration.ofMillis(200)).until(() -> scrape(taskManager),
                            m -> value(m, "duraflow_task_records_out_total", "job_id", jobId) > 0
                                    && value(m, "duraflow_file_merging_physical_bytes", "job_id", jobId) > 0);
            assertThat(value(tm, "duraflow_taskmanager_slots_used")).isPositive();
            assertThat(value(tm, "duraflow_taskmanager_registered")).isEqualTo(1);
            assertThat(tm.get("duraflow_task_records_out_total").matching("job_id", jobId))
                    .allSatisfy(s -> assertThat(s.labels()).containsOnlyKeys("taskmanager", "job_id", "job_name",
                            "vertex_id", "vertex", "subtask"));
            assertThat(value(tm, "duraflow_file_merging_files", "job_id", jobId)).isPositive();
            assertThat(tm).containsKeys("duraflow_task_busy_seconds_total", "duraflow_task_idle_seconds_total",
                    "duraflow_task_backpressured_seconds_total", "jvm_memory_used_bytes");
            assertConventions(tm);
            double taskRecords = value(tm, "duraflow_task_records_out_total", "job_id", jobId);
            await("records grow on the TaskManager").atMost(TIMEOUT).pollInterval(Duration.ofMillis(200))
                    .until(() -> value(scrape(taskManager), "duraflow_task_records_out_total", "job_id", jobId),
                            v -> v > taskRecords);

            // The tests before this one cancelled jobs of their own on the shared cluster.
            double canceledBefore = value(scrape(jobManager), "duraflow_jobmanager_job_results_total", "outcome",
                    "canceled");
            client.cancel(jobId);
            cluster.awaitResult(jobId, TIMEOUT);
            Map<String, PrometheusText.Family> ended = await("the cancelled job's result in the store")
                    .atMost(TIMEOUT).pollInterval(Duration.ofMillis(500)).until(() -> scrape(jobManager),
                            m -> value(m, "duraflow_jobmanager_job_results_total", "outcome", "canceled")
                                    == canceledBefore + 1 && value(m, "duraflow_job_result_store_entries") >= 1);
            assertThat(ended).as("an ended job's series go (no other job runs)").doesNotContainKeys(
                    "duraflow_job_status", "duraflow_vertex_records_out_total");
        }
    }

    /** The endpoint a process logged, once it logged it. */
    private static String endpoint(Path log, String role) {
        return await(role + " metrics endpoint in " + log).atMost(TIMEOUT).pollInterval(Duration.ofMillis(100))
                .until(() -> {
                    if (!Files.exists(log)) {
                        return null;
                    }
                    Matcher m = ENDPOINT.matcher(Files.readString(log));
                    while (m.find()) {
                        if (m.group(1).equals(role)) {
                            return m.group(2);
                        }
                    }
                    return null;
                }, url -> url != null);
    }

    private static Map<String, PrometheusText.Family> scrape(String url) throws Exception {
        assertThat(url).startsWith("http://127.0.0.1:");
        return PrometheusText.parse(PrometheusText.scrape(url));
    }

    /** The sum of the family's samples that carry the labels; 0 without such a family. */
    private static double value(Map<String, PrometheusText.Family> families, String name, String... labels) {
        PrometheusText.Family family = families.get(name);
        return family == null ? 0 : family.sum(labels);
    }

    /** Duraflow's own families: snake_case with the duraflow_ prefix, help, counters ending in _total. */
    private static void assertConventions(Map<String, PrometheusText.Family> families) {
        for (PrometheusText.Family family : families.values()) {
            if (!family.name().startsWith("duraflow_")) {
                continue;
            }
            assertThat(family.name()).matches("duraflow_[a-z0-9_]+");
            assertThat(family.help()).as(family.name()).isNotBlank();
            if (family.type().equals("counter")) {
                assertThat(family.name()).endsWith("_total");
            }
            for (PrometheusText.Sample sample : family.samples()) {
                assertThat(sample.labels().keySet()).allMatch(l -> l.matches("[a-z_]+"), family.name());
            }
        }
    }
}
