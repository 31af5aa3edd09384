package io.duraflow.jobmanager;

import io.duraflow.checkpoint.CheckpointFailureReason;
import io.duraflow.checkpoint.CheckpointStats;
import io.duraflow.checkpoint.CheckpointTotals;
import io.duraflow.jobmanager.jobmaster.JobMetrics;
import io.duraflow.jobstore.JobOutcome;
import io.duraflow.jobstore.JobResultStore;
import io.duraflow.metrics.Families;
import io.duraflow.rpc.proto.JobState;
import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.rpc.proto.TaskManagerInfo;
import io.duraflow.rpc.proto.VertexStatus;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.Unit;
import java.util.Locale;

/**
 * A JobManager's metric families from a {@link JobManagerMetrics.Snapshot}: pure, so the names,
 * types, labels and values are tested without a JobManager. Labels are bounded: jobs are those
 * of the leader without a durable result yet (an ended job's series go when its result is stored),
 * vertices and checkpoint failure reasons are fixed per job, TaskManagers are the registered ones.
 *
 * <pre>
 *   every JobManager     duraflow_jobmanager_is_leader, _leaderships_total, _leadership_start_time_seconds
 *   the leader           duraflow_cluster_*                      registered TaskManagers, slots, their memory
 *                        duraflow_jobmanager_job_results_total   {outcome}
 *                        duraflow_job_result_store_entries       {state="dirty"|"clean"}
 *   per job              duraflow_job_*                          {job_id, job_name}
 *   per vertex           duraflow_vertex_*                       {job_id, job_name, vertex_id, vertex}
 * </pre>
 */
final class JobManagerMetricFamilies {
    private static final String[] JOB = {"job_id", "job_name"};
    private static final String[] VERTEX = {"job_id", "job_name", "vertex_id", "vertex"};

    private JobManagerMetricFamilies() {}

    /**
     * @param resultCounts the job result store's entries, or null (a standby, or the listing failed)
     */
    static MetricSnapshots of(JobManagerMetrics.Snapshot snapshot, JobResultStore.EntryCounts resultCounts) {
        Families families = new Families();
        families.gauge("duraflow_jobmanager_is_leader", "1 while this JobManager leads, else 0", null)
                .set(snapshot.leading() ? 1 : 0);
        families.counter("duraflow_jobmanager_leaderships", "Leaderships this JobManager was granted since it"
                + " started", null).set(snapshot.leaderships());
        if (snapshot.leading()) {
            families.gauge("duraflow_jobmanager_leadership_start_time_seconds", "When the current leadership of this"
                    + " JobManager began, seconds since the epoch", Unit.SECONDS)
                    .set(snapshot.leaderSinceMs() / 1000.0);
            cluster(families, snapshot);
            Families.Counter results = families.counter("duraflow_jobmanager_job_results", "Job results made durable"
                    + " under this leadership, by outcome", null, "outcome");
            for (JobOutcome outcome : JobOutcome.values()) {
                results.set(snapshot.resultsStored().getOrDefault(outcome, 0L), name(outcome));
            }
            if (resultCounts != null) {
                families.gauge("duraflow_job_result_store_entries", "Entries of the job result store: dirty (the job"
                        + " ended, its cleanup is not done) and clean", null, "state")
                        .set(resultCounts.dirty(), "dirty").set(resultCounts.clean(), "clean");
            }
        }
        jobs(families, snapshot);
        return families.build();
    }

    private static void cluster(Families families, JobManagerMetrics.Snapshot snapshot) {
        int slots = 0;
        int free = 0;
        Families.Gauge inUse = families.gauge("duraflow_cluster_taskmanager_network_memory_used_bytes", "Network"
                + " memory a TaskManager has in use, as of its last heartbeat", Unit.BYTES, "taskmanager");
        Families.Gauge total = families.gauge("duraflow_cluster_taskmanager_network_memory_bytes", "Network memory of"
                + " a TaskManager, as of its last heartbeat", Unit.BYTES, "taskmanager");
        Families.Gauge heap = families.gauge("duraflow_cluster_taskmanager_heap_used_bytes", "Heap a TaskManager"
                + " used, as of its last heartbeat", Unit.BYTES, "taskmanager");
        for (TaskManagerInfo tm : snapshot.taskManagers()) {
            slots += tm.getSlots();
            free += tm.getFreeSlots();
            inUse.set(tm.getNetworkBytesInUse(), tm.getTmId());
            total.set(tm.getNetworkBytesTotal(), tm.getTmId());
            heap.set(tm.getHeapUsedBytes(), tm.getTmId());
        }
        families.gauge("duraflow_cluster_taskmanagers", "TaskManagers registered with this leader", null)
                .set(snapshot.taskManagers().size());
        families.gauge("duraflow_cluster_slots", "Task slots of the registered TaskManagers", null).set(slots);
        families.gauge("duraflow_cluster_slots_free", "Task slots free", null).set(free);
    }

    private static void jobs(Families families, JobManagerMetrics.Snapshot snapshot) {
        Families.Gauge status = families.gauge("duraflow_job_status", "1 for the job's current status, 0 for the"
                + " others", null, "job_id", "job_name", "status");
        Families.Gauge uptime = families.gauge("duraflow_job_uptime_seconds", "Time since the job was submitted"
                + " (until it ended)", Unit.SECONDS, JOB);
        Families.Counter restarts = families.counter("duraflow_job_restarts", "Restarts of the job (failovers) under"
                + " this leadership", null, JOB);
        Families.Gauge parallelism = families.gauge("duraflow_vertex_parallelism", "Subtasks of the vertex (0 while"
                + " not decided)", null, VERTEX);
        Families.Gauge running = families.gauge("duraflow_vertex_tasks_running", "Subtasks deploying or running",
                null, VERTEX);
        Families.Gauge finished = families.gauge("duraflow_vertex_tasks_finished", "Subtasks finished", null,
                VERTEX);
        Families.Counter recordsIn = families.counter("duraflow_vertex_records_in", "Records the vertex read:"
                + " finished subtasks, and running ones as of their last heartbeat", null, VERTEX);
        Families.Counter recordsOut = families.counter("duraflow_vertex_records_out", "Records the vertex emitted:"
                + " finished subtasks, and running ones as of their last heartbeat", null, VERTEX);
        Families.Gauge inRate = families.gauge("duraflow_vertex_records_in_per_second", "Records read per second by"
                + " the running streaming subtasks, between their last two heartbeats", null, VERTEX);
        Families.Gauge outRate = families.gauge("duraflow_vertex_records_out_per_second", "Records emitted per"
                + " second by the running streaming subtasks, between their last two heartbeats", null, VERTEX);
        Families.Gauge busy = families.gauge("duraflow_vertex_busy_ratio", "Share of time the running streaming"
                + " subtasks were busy, averaged", Unit.RATIO, VERTEX);
        Families.Gauge backpressured = families.gauge("duraflow_vertex_backpressured_ratio", "Share of time the"
                + " running streaming subtasks waited for an output, averaged", Unit.RATIO, VERTEX);
        Families.Gauge idle = families.gauge("duraflow_vertex_idle_ratio", "Share of time the running streaming"
                + " subtasks waited for input, averaged", Unit.RATIO, VERTEX);
        CheckpointFamilies checkpoints = new CheckpointFamilies(families);
        Families.Gauge kept = families.gauge("duraflow_job_recovery_tasks_kept", "A job this leader took over:"
                + " finished tasks whose output was kept", null, JOB);
        Families.Gauge runAgain = families.gauge("duraflow_job_recovery_tasks_run_again", "A job this leader took"
                + " over: tasks that run again (streaming: all, from the latest checkpoint)", null, JOB);
        Families.Gauge resume = families.gauge("duraflow_job_recovery_resume_seconds", "A job this leader took over:"
                + " from the start of the leadership to its first task running", Unit.SECONDS, JOB);
        Families.Counter logBytes = families.counter("duraflow_job_event_log_written_bytes", "Bytes the job event"
                + " log wrote and synced (batch job recovery)", Unit.BYTES, JOB);
        Families.Counter logEvents = families.counter("duraflow_job_event_log_events_written", "Events the job event"
                + " log wrote and synced", null, JOB);
        Families.Counter logDropped = families.counter("duraflow_job_event_log_events_dropped", "Events the job"
                + " event log dropped (it fell behind or could not write)", null, JOB);
        Families.Gauge logRecording = families.gauge("duraflow_job_event_log_recording", "1 while the job event log"
                + " records, 0 once a failure stopped it", null, JOB);

        for (JobManagerMetrics.Job job : snapshot.jobs()) {
            JobMetrics metrics = job.metrics();
            JobStatus s = metrics.status();
            String[] labels = {s.getJobId(), s.getJobName()};
            for (JobState state : JobState.values()) {
                if (state != JobState.JOB_STATE_UNSPECIFIED && state != JobState.UNRECOGNIZED) {
                    status.set(state == s.getState() ? 1 : 0, s.getJobId(), s.getJobName(), name(state));
                }
            }
            long endMs = s.getEndedAtMs() > 0 ? s.getEndedAtMs() : snapshot.nowMs();
            uptime.set(Math.max(0, endMs - s.getSubmittedAtMs()) / 1000.0, labels);
            restarts.set(s.getRestarts(), labels);
            for (VertexStatus v : s.getVerticesList()) {
                String[] vertex = {s.getJobId(), s.getJobName(), Integer.toString(v.getId()), v.getName()};
                parallelism.set(v.getParallelism(), vertex);
                running.set(v.getRunning(), vertex);
                finished.set(v.getFinished(), vertex);
                recordsIn.set(v.getRecordsIn(), vertex);
                recordsOut.set(v.getRecordsOut(), vertex);
                if (v.hasRates()) {
                    inRate.set(v.getRates().getRecordsInPerSecond(), vertex);
                    outRate.set(v.getRates().getRecordsOutPerSecond(), vertex);
                    busy.set(v.getRates().getBusyMsPerSecond() / 1000, vertex);
                    backpressured.set(v.getRates().getBackpressuredMsPerSecond() / 1000, vertex);
                    idle.set(v.getRates().getIdleMsPerSecond() / 1000, vertex);
                }
            }
            if (metrics.checkpoints() != null) {
                checkpoints.add(metrics.checkpoints(), snapshot.nowMs(), labels);
            }
            if (job.recovered()) {
                kept.set(s.getRestoredTasks(), labels);
                runAgain.set(metrics.tasksToRunAgain(), labels);
                if (metrics.firstTaskRunningAtMs() > 0) {
                    resume.set(Math.max(0, metrics.firstTaskRunningAtMs() - snapshot.leaderSinceMs()) / 1000.0,
                            labels);
                }
            }
            if (job.eventLog() != null) {
                logBytes.set(job.eventLog().writtenBytes(), labels);
                logEvents.set(job.eventLog().writtenEvents(), labels);
                logDropped.set(job.eventLog().droppedEvents(), labels);
                logRecording.set(job.eventLog().recording() ? 1 : 0, labels);
            }
        }
    }

    /** The checkpoint families of every job with checkpointing. */
    private static final class CheckpointFamilies {
        final Families.Counter completed;
        final Families.Counter failed;
        final Families.Counter declined;
        final Families.Gauge inProgress;
        final Families.Histogram duration;
        final Families.Gauge lastId;
        final Families.Gauge lastCompletedAt;
        final Families.Gauge lastDuration;
        final Families.Gauge lastSize;
        final Families.Gauge lastWritten;
        final Families.Gauge lastFiles;
        final Families.Gauge lastUploaded;
        final Families.Gauge lastReused;

        CheckpointFamilies(Families families) {
            completed = families.counter("duraflow_job_checkpoints_completed", "Checkpoints and savepoints completed"
                    + " (since this JobMaster started)", null, JOB);
            failed = families.counter("duraflow_job_checkpoints_failed", "Checkpoints and savepoints that failed, by"
                    + " reason", null, "job_id", "job_name", "reason");
            declined = families.counter("duraflow_job_checkpoints_declined", "Checkpoints a source, enumerator, sink"
                    + " or keyed function declined: soft (not now; never counts toward tolerable failures) or hard",
                    null, "job_id", "job_name", "kind");
            inProgress = families.gauge("duraflow_job_checkpoints_in_progress", "Checkpoints and savepoints in"
                    + " progress", null, JOB);
            duration = families.histogram("duraflow_job_checkpoint_duration_seconds", "Completed checkpoints, trigger"
                    + " to completion", Unit.SECONDS, JOB);
            lastId = families.gauge("duraflow_job_last_checkpoint_id", "Id of the latest completed checkpoint", null,
                    JOB);
            lastCompletedAt = families.gauge("duraflow_job_last_checkpoint_completed_time_seconds", "When the latest"
                    + " completed checkpoint completed, seconds since the epoch", Unit.SECONDS, JOB);
            lastDuration = families.gauge("duraflow_job_last_checkpoint_duration_seconds", "Trigger to completion of"
                    + " the latest completed checkpoint", Unit.SECONDS, JOB);
            lastSize = families.gauge("duraflow_job_last_checkpoint_size_bytes", "Full size of the latest completed"
                    + " checkpoint: every byte a restore reads", Unit.BYTES, JOB);
            lastWritten = families.gauge("duraflow_job_last_checkpoint_written_bytes", "Bytes the latest completed"
                    + " checkpoint wrote (incremental size)", Unit.BYTES, JOB);
            lastFiles = families.gauge("duraflow_job_last_checkpoint_files", "State files the latest completed"
                    + " checkpoint refers to", null, JOB);
            lastUploaded = families.gauge("duraflow_job_last_checkpoint_files_uploaded", "State files the latest"
                    + " completed checkpoint wrote", null, JOB);
            lastReused = families.gauge("duraflow_job_last_checkpoint_files_reused", "Shared files of earlier"
                    + " checkpoints the latest completed checkpoint refers to", null, JOB);
        }

        void add(CheckpointTotals totals, long nowMs, String[] job) {
            completed.set(totals.completed(), job);
            for (CheckpointFailureReason reason : CheckpointFailureReason.values()) {
                failed.set(totals.failed(reason), job[0], job[1], name(reason));
            }
            declined.set(totals.failed(CheckpointFailureReason.SNAPSHOT_UNAVAILABLE_SOFT), job[0], job[1], "soft");
            declined.set(totals.failed(CheckpointFailureReason.SNAPSHOT_UNAVAILABLE_HARD), job[0], job[1], "hard");
            inProgress.set(totals.inProgress(), job);
            duration.set(totals.durationUpperBoundsSeconds(), totals.durationCounts(), totals.durationSumSeconds(),
                    job);
            CheckpointStats last = totals.latestCompleted();
            if (last != null) {
                lastId.set(last.checkpointId(), job);
                lastCompletedAt.set(last.endMs() / 1000.0, job);
                lastDuration.set(last.durationMs(nowMs) / 1000.0, job);
                lastSize.set(last.stateSize(), job);
                lastWritten.set(last.checkpointedSize(), job);
                lastFiles.set(last.files(), job);
                lastUploaded.set(last.filesUploaded(), job);
                lastReused.set(last.filesReused(), job);
            }
        }
    }

    /** An enum constant as a label value: lower case, without the proto's JOB_ prefix. */
    static String name(Enum<?> value) {
        return value.name().replaceFirst("^JOB_", "").toLowerCase(Locale.ROOT);
    }
}
