package io.duraflow.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.duraflow.examples.StreamingKeyedSum;
import io.duraflow.metrics.PrometheusText;
import io.duraflow.rpc.proto.SubmitJobRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Prometheus endpoints of a real cluster (one JobManager, one TaskManager with 4 slots, {@code
 * metrics.prometheus.port=0}): a throttled streaming job with checkpoints into merged files runs,
 * both endpoints are scraped over HTTP on loopback and read with the strict {@link PrometheusText}
 * parser, and the figures move: records grow, checkpoints complete, and once the job is cancelled
 * its result shows in the results and the job result store's entries.
 */
class MetricsIT {
    private static final Duration TIMEOUT = Duration.ofMinutes(2);
    private static final Pattern ENDPOINT = Pattern.compile("Prometheus metrics of this (\\w+) at (http://\\S+)");

    @RegisterExtension
    static final LogsOnFailure LOGS = new LogsOnFailure();

    @TempDir
    Path tempDir;

    @Test
    void jobManagerAndTaskManagerEndpointsShowARunningJob() throws Exception {
        Path dir = LOGS.watch(tempDir.resolve("cluster"));
        try (TestCluster cluster = TestCluster.start(dir, 1, Map.of("metrics.prometheus.port", "0",
                "taskmanager.slots", "4"));
                ClusterClient client = new ClusterClient(cluster.address())) {
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

            client.cancel(jobId);
            cluster.awaitResult(jobId, TIMEOUT);
            Map<String, PrometheusText.Family> ended = await("the cancelled job's result in the store")
                    .atMost(TIMEOUT).pollInterval(Duration.ofMillis(500)).until(() -> scrape(jobManager),
                            m -> value(m, "duraflow_jobmanager_job_results_total", "outcome", "canceled") == 1
                                    && value(m, "duraflow_job_result_store_entries") >= 1);
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
