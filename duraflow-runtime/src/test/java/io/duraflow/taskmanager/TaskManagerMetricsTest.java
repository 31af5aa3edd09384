package io.duraflow.taskmanager;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.api.metrics.MetricRegistry;
import io.duraflow.metrics.PrometheusText;
import io.duraflow.metrics.TextFormat;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.TaskMetricsSample;
import io.duraflow.state.filemerging.SpaceUsage;
import io.duraflow.taskmanager.task.TaskMetricsView;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TaskManagerMetricsTest {
    private static final long SECOND = 1_000_000_000L;

    @Test
    void showsSlotsTasksAndMergedFiles() {
        TaskMetricsView source = new TaskMetricsView(
                AttemptId.newBuilder().setJobId("j1").setVertex(1).setSubtask(0).setAttempt(1).build(), "keyed sum",
                "Source", 5 * SECOND, TaskMetricsSample.newBuilder().setSampledAtNanos(15 * SECOND).setRecordsOut(700)
                        .setIdleNanos(2 * SECOND).setBackpressuredNanos(6 * SECOND).build(), List.of());
        TaskManagerMetrics.Snapshot snapshot = new TaskManagerMetrics.Snapshot("tm-1", 4, 2, true, 3, 2,
                List.of(source));

        Map<String, PrometheusText.Family> parsed = TextFormat.roundTrip(TaskManagerMetrics.families(snapshot, 256,
                1_024, Map.of("j1", new SpaceUsage(3_000, 2_000, 4, 1, 1, 2),
                        "j2", new SpaceUsage(0, 0, 0, 0))));

        assertThat(parsed.get("duraflow_taskmanager_slots").sum("taskmanager", "tm-1")).isEqualTo(4);
        assertThat(parsed.get("duraflow_taskmanager_slots_used").sum()).isEqualTo(2);
        assertThat(parsed.get("duraflow_taskmanager_registered").sum()).isEqualTo(1);
        assertThat(parsed.get("duraflow_taskmanager_registrations_total").sum()).isEqualTo(3);
        assertThat(parsed.get("duraflow_taskmanager_jobmanager_lost_total").sum()).isEqualTo(2);
        assertThat(parsed.get("duraflow_taskmanager_network_memory_used_bytes").sum()).isEqualTo(256);
        assertThat(parsed.get("duraflow_taskmanager_network_memory_bytes").sum()).isEqualTo(1_024);

        String[] task = {"taskmanager", "tm-1", "job_id", "j1", "job_name", "keyed sum", "vertex_id", "1", "vertex",
            "Source", "subtask", "0"};
        assertThat(parsed.get("duraflow_task_records_out_total").sum(task)).isEqualTo(700);
        assertThat(parsed.get("duraflow_task_records_in_total").sum(task)).isZero();
        assertThat(parsed.get("duraflow_task_idle_seconds_total").sum(task)).isEqualTo(2);
        assertThat(parsed.get("duraflow_task_backpressured_seconds_total").sum(task)).isEqualTo(6);
        assertThat(parsed.get("duraflow_task_busy_seconds_total").sum(task)).as("10 s running - 8 s waiting")
                .isEqualTo(2);
        assertThat(parsed.get("duraflow_task_attempt").sum(task)).isEqualTo(1);

        assertThat(parsed.get("duraflow_file_merging_files").sum("job_id", "j1")).isEqualTo(4);
        assertThat(parsed.get("duraflow_file_merging_open_files").sum("job_id", "j1")).isEqualTo(1);
        assertThat(parsed.get("duraflow_file_merging_pool_files").sum("job_id", "j1")).isEqualTo(1);
        assertThat(parsed.get("duraflow_file_merging_unpooled_files_total").sum("job_id", "j1")).isEqualTo(2);
        assertThat(parsed.get("duraflow_file_merging_physical_bytes").sum("job_id", "j1")).isEqualTo(3_000);
        assertThat(parsed.get("duraflow_file_merging_live_bytes").sum("job_id", "j1")).isEqualTo(2_000);
        assertThat(parsed.get("duraflow_file_merging_space_amplification_ratio").sum("job_id", "j1")).isEqualTo(1.5);
        assertThat(parsed.get("duraflow_file_merging_space_amplification_ratio").matching("job_id", "j2"))
                .as("nothing live: no ratio").isEmpty();
        assertThat(parsed.get("duraflow_file_merging_files").sum("job_id", "j2")).isZero();
    }

    @Test
    void userMetricsAreExportedWithTheTasksLabelsAndTheirOwn() {
        MetricRegistry first = new MetricRegistry();
        first.counter("records_skipped", "Records the reader skipped").inc(3);
        first.withLabel("topic", "in").withLabel("partition", "0").gauge("lag_records", "Records behind", () -> 40);
        first.withLabel("topic", "in").withLabel("partition", "1").gauge("lag_records", "Records behind", () -> 2);
        MetricRegistry second = new MetricRegistry();
        second.counter("records_skipped", "Records the reader skipped").inc(5);
        second.gauge("lag_records", "Another job's lag, without labels", () -> 7);

        Map<String, PrometheusText.Family> parsed = TextFormat.roundTrip(TaskManagerMetrics.families(
                new TaskManagerMetrics.Snapshot("tm-1", 2, 2, true, 1, 0, List.of(task(0, first), task(1, second))),
                0, 0, Map.of()));

        assertThat(parsed.get("duraflow_operator_records_skipped_total").sum("subtask", "0", "vertex", "Kafka"))
                .isEqualTo(3);
        assertThat(parsed.get("duraflow_operator_records_skipped_total").sum()).isEqualTo(8);
        assertThat(parsed.get("duraflow_operator_lag_records").sum("job_id", "j1", "topic", "in", "partition", "1"))
                .isEqualTo(2);
        assertThat(parsed.get("duraflow_operator_lag_records").sum()).as("the second task's other labels are left out")
                .isEqualTo(42);
    }

    private static TaskMetricsView task(int subtask, MetricRegistry metrics) {
        return new TaskMetricsView(AttemptId.newBuilder().setJobId("j1").setVertex(1).setSubtask(subtask).build(),
                "job", "Kafka", 0, TaskMetricsSample.newBuilder().setSampledAtNanos(SECOND).build(), metrics.sample());
    }

    @Test
    void withoutTasksOrMergedFilesOnlyTheTaskManagerIsShown() {
        TaskManagerMetrics.Snapshot idle = new TaskManagerMetrics.Snapshot("tm-2", 1, 0, false, 0, 0, List.of());

        Map<String, PrometheusText.Family> parsed = TextFormat.roundTrip(TaskManagerMetrics.families(idle, 0, 0,
                Map.of()));

        assertThat(parsed.keySet()).allMatch(name -> name.startsWith("duraflow_taskmanager_"));
        assertThat(parsed.get("duraflow_taskmanager_registered").sum()).isZero();
    }
}
