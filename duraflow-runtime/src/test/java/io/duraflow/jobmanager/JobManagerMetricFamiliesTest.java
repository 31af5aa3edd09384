package io.duraflow.jobmanager;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.checkpoint.CheckpointFailureReason;
import io.duraflow.checkpoint.CheckpointKind;
import io.duraflow.checkpoint.CheckpointStats;
import io.duraflow.checkpoint.CheckpointTotals;
import io.duraflow.fs.FsPath;
import io.duraflow.jobmanager.jobmaster.JobMetrics;
import io.duraflow.jobstore.JobOutcome;
import io.duraflow.jobstore.JobResultStore;
import io.duraflow.metrics.PrometheusText;
import io.duraflow.metrics.TextFormat;
import io.duraflow.rpc.proto.JobState;
import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.rpc.proto.TaskManagerInfo;
import io.duraflow.rpc.proto.VertexRates;
import io.duraflow.rpc.proto.VertexStatus;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class JobManagerMetricFamiliesTest {
    private static final long NOW_MS = 1_700_000_100_000L;
    private static final long LEADER_SINCE_MS = 1_700_000_000_000L;
    private static final Pattern NAME = Pattern.compile("duraflow_[a-z0-9_]+");

    private static JobStatus streamingJob() {
        return JobStatus.newBuilder().setJobId("j1").setJobName("keyed sum").setState(JobState.JOB_RUNNING)
                .setSubmittedAtMs(NOW_MS - 90_000).setRestarts(2)
                .addVertices(VertexStatus.newBuilder().setId(1).setName("Source").setParallelism(2).setRunning(2)
                        .setRecordsOut(1_000).setRates(VertexRates.newBuilder().setRecordsOutPerSecond(50)
                                .setBusyMsPerSecond(250).setBackpressuredMsPerSecond(700).setIdleMsPerSecond(50)
                                .setSubtasks(2)))
                .addVertices(VertexStatus.newBuilder().setId(2).setName("Sum -> Sink").setParallelism(2)
                        .setRunning(2).setRecordsIn(990))
                .build();
    }

    private static CheckpointTotals checkpoints() {
        double[] bounds = {1, 10, Double.POSITIVE_INFINITY};
        CheckpointStats last = new CheckpointStats(7, CheckpointKind.CHECKPOINT, CheckpointStats.Status.COMPLETED,
                NOW_MS - 2_500, NOW_MS - 1_000, 4_096, 1_024, 5, 2, 3, FsPath.parse("/tmp/chk-7"), null);
        return new CheckpointTotals(7, Map.of(CheckpointFailureReason.SNAPSHOT_UNAVAILABLE_SOFT, 4L,
                CheckpointFailureReason.SNAPSHOT_UNAVAILABLE_HARD, 1L, CheckpointFailureReason.EXPIRED, 1L), bounds,
                new long[] {5, 2, 0}, 9.5, last, 1);
    }

    private static JobManagerMetrics.Snapshot leading(JobManagerMetrics.Job... jobs) {
        return new JobManagerMetrics.Snapshot(NOW_MS, true, 2, LEADER_SINCE_MS, List.of(jobs),
                List.of(TaskManagerInfo.newBuilder().setTmId("tm-1").setSlots(4).setFreeSlots(1)
                        .setNetworkBytesInUse(100).setNetworkBytesTotal(1_000).setHeapUsedBytes(5_000).build()),
                Map.of(JobOutcome.FINISHED, 3L, JobOutcome.CANCELED, 1L));
    }

    @Test
    void aLeaderShowsItsJobsVerticesCheckpointsAndResultStore() {
        JobManagerMetrics.Job job = new JobManagerMetrics.Job(new JobMetrics(streamingJob(), true, 0, 0, checkpoints()),
                false, null);

        Map<String, PrometheusText.Family> parsed = TextFormat.roundTrip(JobManagerMetricFamilies.of(leading(job),
                new JobResultStore.EntryCounts(1, 6)));

        assertThat(parsed.get("duraflow_jobmanager_is_leader").sum()).isEqualTo(1);
        assertThat(parsed.get("duraflow_jobmanager_leaderships_total").sum()).isEqualTo(2);
        assertThat(parsed.get("duraflow_jobmanager_leadership_start_time_seconds").sum()).isEqualTo(1_700_000_000.0);
        assertThat(parsed.get("duraflow_cluster_taskmanagers").sum()).isEqualTo(1);
        assertThat(parsed.get("duraflow_cluster_slots").sum()).isEqualTo(4);
        assertThat(parsed.get("duraflow_cluster_slots_free").sum()).isEqualTo(1);
        assertThat(parsed.get("duraflow_cluster_taskmanager_network_memory_used_bytes").sum("taskmanager", "tm-1"))
                .isEqualTo(100);
        assertThat(parsed.get("duraflow_jobmanager_job_results_total").sum("outcome", "finished")).isEqualTo(3);
        assertThat(parsed.get("duraflow_jobmanager_job_results_total").sum("outcome", "failed")).isZero();
        assertThat(parsed.get("duraflow_job_result_store_entries").sum("state", "dirty")).isEqualTo(1);
        assertThat(parsed.get("duraflow_job_result_store_entries").sum("state", "clean")).isEqualTo(6);

        PrometheusText.Family status = parsed.get("duraflow_job_status");
        assertThat(status.matching("job_id", "j1")).hasSize(6);
        assertThat(status.sum("job_id", "j1", "job_name", "keyed sum", "status", "running")).isEqualTo(1);
        assertThat(status.sum("job_id", "j1")).as("one status at a time").isEqualTo(1);
        assertThat(parsed.get("duraflow_job_uptime_seconds").sum("job_id", "j1")).isEqualTo(90);
        assertThat(parsed.get("duraflow_job_restarts_total").sum("job_id", "j1")).isEqualTo(2);

        String[] source = {"job_id", "j1", "vertex_id", "1", "vertex", "Source"};
        String[] sum = {"job_id", "j1", "vertex_id", "2", "vertex", "Sum -> Sink"};
        assertThat(parsed.get("duraflow_vertex_records_out_total").sum(source)).isEqualTo(1_000);
        assertThat(parsed.get("duraflow_vertex_records_in_total").sum(sum)).isEqualTo(990);
        assertThat(parsed.get("duraflow_vertex_parallelism").sum(sum)).isEqualTo(2);
        assertThat(parsed.get("duraflow_vertex_backpressured_ratio").sum(source)).isEqualTo(0.7);
        assertThat(parsed.get("duraflow_vertex_busy_ratio").sum(source)).isEqualTo(0.25);
        assertThat(parsed.get("duraflow_vertex_busy_ratio").matching(sum)).as("no rates, no sample").isEmpty();

        assertThat(parsed.get("duraflow_job_checkpoints_completed_total").sum()).isEqualTo(7);
        assertThat(parsed.get("duraflow_job_checkpoints_declined_total").sum("kind", "soft")).isEqualTo(4);
        assertThat(parsed.get("duraflow_job_checkpoints_declined_total").sum("kind", "hard")).isEqualTo(1);
        assertThat(parsed.get("duraflow_job_checkpoints_failed_total").sum("reason", "expired")).isEqualTo(1);
        assertThat(parsed.get("duraflow_job_checkpoints_failed_total").sum()).isEqualTo(6);
        assertThat(parsed.get("duraflow_job_checkpoints_in_progress").sum()).isEqualTo(1);
        PrometheusText.Family duration = parsed.get("duraflow_job_checkpoint_duration_seconds");
        assertThat(duration.type()).isEqualTo("histogram");
        assertThat(duration.sum("le", "10.0")).as("cumulative").isEqualTo(7);
        assertThat(parsed.get("duraflow_job_last_checkpoint_id").sum()).isEqualTo(7);
        assertThat(parsed.get("duraflow_job_last_checkpoint_duration_seconds").sum()).isEqualTo(1.5);
        assertThat(parsed.get("duraflow_job_last_checkpoint_size_bytes").sum()).isEqualTo(4_096);
        assertThat(parsed.get("duraflow_job_last_checkpoint_written_bytes").sum()).isEqualTo(1_024);
        assertThat(parsed.get("duraflow_job_last_checkpoint_files").sum()).isEqualTo(5);
        assertThat(parsed).as("not recovered, no event log").doesNotContainKeys("duraflow_job_recovery_tasks_kept",
                "duraflow_job_event_log_written_bytes_total");

        for (PrometheusText.Family family : parsed.values()) {
            assertThat(family.name()).matches(NAME);
            assertThat(family.help()).isNotBlank();
            if (family.type().equals("counter")) {
                assertThat(family.name()).endsWith("_total");
            }
        }
    }

    @Test
    void aRecoveredBatchJobShowsItsRecoveryAndEventLog() {
        JobStatus status = JobStatus.newBuilder().setJobId("b1").setJobName("word count")
                .setState(JobState.JOB_RUNNING).setSubmittedAtMs(NOW_MS - 200_000).setRestoredTasks(6).build();
        JobManagerMetrics.Job job = new JobManagerMetrics.Job(
                new JobMetrics(status, false, 2, LEADER_SINCE_MS + 1_250, null), true,
                new JobManagerMetrics.EventLog(8_192, 40, 3, false));

        Map<String, PrometheusText.Family> parsed = TextFormat.roundTrip(JobManagerMetricFamilies.of(leading(job),
                null));

        assertThat(parsed.get("duraflow_job_recovery_tasks_kept").sum("job_id", "b1")).isEqualTo(6);
        assertThat(parsed.get("duraflow_job_recovery_tasks_run_again").sum("job_id", "b1")).isEqualTo(2);
        assertThat(parsed.get("duraflow_job_recovery_resume_seconds").sum("job_id", "b1")).isEqualTo(1.25);
        assertThat(parsed.get("duraflow_job_event_log_written_bytes_total").sum("job_id", "b1")).isEqualTo(8_192);
        assertThat(parsed.get("duraflow_job_event_log_events_written_total").sum("job_id", "b1")).isEqualTo(40);
        assertThat(parsed.get("duraflow_job_event_log_events_dropped_total").sum("job_id", "b1")).isEqualTo(3);
        assertThat(parsed.get("duraflow_job_event_log_recording").sum("job_id", "b1")).isZero();
        assertThat(parsed).as("a batch job has no checkpoints; the store could not be listed")
                .doesNotContainKeys("duraflow_job_checkpoints_completed_total", "duraflow_job_result_store_entries");
    }

    @Test
    void aStandbyShowsOnlyThatItStandsBy() {
        JobManagerMetrics.Snapshot standby = new JobManagerMetrics.Snapshot(NOW_MS, false, 1, 0, List.of(), List.of(),
                Map.of());

        Map<String, PrometheusText.Family> parsed = TextFormat.roundTrip(JobManagerMetricFamilies.of(standby, null));

        assertThat(parsed).containsOnlyKeys("duraflow_jobmanager_is_leader", "duraflow_jobmanager_leaderships_total");
        assertThat(parsed.get("duraflow_jobmanager_is_leader").sum()).isZero();
    }
}
