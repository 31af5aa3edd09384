package io.duraflow.taskmanager;

import io.duraflow.api.metrics.MetricSample;
import io.duraflow.metrics.Families;
import io.duraflow.exchange.pipelined.NetworkEnvironment;
import io.duraflow.rpc.proto.TaskMetricsSample;
import io.duraflow.state.filemerging.FileMergingManagers;
import io.duraflow.state.filemerging.SpaceUsage;
import io.duraflow.taskmanager.task.TaskMetricsView;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.Unit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The TaskManager's collector for its Prometheus endpoint. The slots, the registration and the
 * running streaming tasks' last counter samples are copied in the {@link TaskExecutor}'s mailbox
 * ({@link Snapshot}); the samples are those the tasks take on their own threads for the heartbeat,
 * so a scrape adds nothing to a task's work. The network memory and the merged checkpoint files
 * are read from their thread-safe owners. Families:
 *
 * <pre>
 *   duraflow_taskmanager_*     {taskmanager}                 slots, registration, network memory
 *   duraflow_task_*            {taskmanager, job_id, job_name, vertex_id, vertex, subtask}
 *                                                            records, busy / backpressured / idle time, attempt
 *   duraflow_file_merging_*    {taskmanager, job_id}         merged checkpoint files: files, physical vs live
 *                                                            bytes, space amplification
 *   duraflow_operator_&lt;name&gt;  {the task's labels, then the metric's own}
 *                                                            what user code registered ({@link
 *                                                            io.duraflow.api.metrics.MetricGroup}), as of the
 *                                                            task's last sample
 * </pre>
 */
final class TaskManagerMetrics implements MultiCollector {
    private static final Logger LOG = LoggerFactory.getLogger(TaskManagerMetrics.class);
    static final long MAILBOX_TIMEOUT_MS = 5_000;
    private static final String[] TASK = {"taskmanager", "job_id", "job_name", "vertex_id", "vertex", "subtask"};
    private static final String[] FILES = {"taskmanager", "job_id"};

    /**
     * What the mailbox hands to a scrape.
     *
     * @param registrations registrations with a leader since start (one more after each leader change)
     * @param jobManagersLost times the JobManager was lost (leader change, missed heartbeats)
     * @param tasks the running streaming tasks that sampled their counters at least once
     */
    record Snapshot(String taskManagerId, int slots, int slotsUsed, boolean registered, long registrations,
            long jobManagersLost, List<TaskMetricsView> tasks) {
        Snapshot {
            tasks = List.copyOf(tasks);
        }
    }

    private final Supplier<CompletableFuture<Snapshot>> snapshot;
    private final NetworkEnvironment network;
    private final FileMergingManagers fileMerging;

    TaskManagerMetrics(Supplier<CompletableFuture<Snapshot>> snapshot, NetworkEnvironment network,
            FileMergingManagers fileMerging) {
        this.snapshot = snapshot;
        this.network = network;
        this.fileMerging = fileMerging;
    }

    @Override
    public MetricSnapshots collect() {
        Snapshot taken;
        try {
            taken = snapshot.get().get(MAILBOX_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return MetricSnapshots.of();
        } catch (ExecutionException | TimeoutException e) {
            LOG.warn("A metrics scrape got no answer from the TaskManager's main thread: {}", e.toString());
            return MetricSnapshots.of();
        }
        return families(taken, network.bytesInUse(), network.totalBytes(), fileMerging.spaceUsageByJob());
    }

    /** The families of a TaskManager: pure, for tests. */
    static MetricSnapshots families(Snapshot snapshot, long networkBytesInUse, long networkBytesTotal,
            Map<String, SpaceUsage> mergedFiles) {
        Families families = new Families();
        String tm = snapshot.taskManagerId();
        families.gauge("duraflow_taskmanager_slots", "Task slots of this TaskManager", null, "taskmanager")
                .set(snapshot.slots(), tm);
        families.gauge("duraflow_taskmanager_slots_used", "Task slots taken by a task", null, "taskmanager")
                .set(snapshot.slotsUsed(), tm);
        families.gauge("duraflow_taskmanager_registered", "1 while registered with a leading JobManager, else 0",
                null, "taskmanager").set(snapshot.registered() ? 1 : 0, tm);
        families.counter("duraflow_taskmanager_registrations", "Registrations with a leading JobManager (one more"
                + " after each leader change)", null, "taskmanager").set(snapshot.registrations(), tm);
        families.counter("duraflow_taskmanager_jobmanager_lost", "Times the JobManager was lost (leader changed,"
                + " heartbeats unanswered)", null, "taskmanager").set(snapshot.jobManagersLost(), tm);
        families.gauge("duraflow_taskmanager_network_memory_used_bytes", "Network memory in use by pipelined"
                + " exchanges", Unit.BYTES, "taskmanager").set(networkBytesInUse, tm);
        families.gauge("duraflow_taskmanager_network_memory_bytes", "Network memory of this TaskManager", Unit.BYTES,
                "taskmanager").set(networkBytesTotal, tm);

        Families.Counter recordsIn = families.counter("duraflow_task_records_in", "Records a running streaming"
                + " task read, as of its last sample (every heartbeat)", null, TASK);
        Families.Counter recordsOut = families.counter("duraflow_task_records_out", "Records a running streaming"
                + " task emitted, as of its last sample", null, TASK);
        Families.Counter busy = families.counter("duraflow_task_busy_seconds", "Time a running streaming task was"
                + " neither idle nor backpressured", Unit.SECONDS, TASK);
        Families.Counter backpressured = families.counter("duraflow_task_backpressured_seconds", "Time a running"
                + " streaming task waited for an output to be available", Unit.SECONDS, TASK);
        Families.Counter idle = families.counter("duraflow_task_idle_seconds", "Time a running streaming task waited"
                + " for input or mail", Unit.SECONDS, TASK);
        Families.Gauge attempt = families.gauge("duraflow_task_attempt", "Attempt number of the running task (0:"
                + " its first run)", null, TASK);
        for (TaskMetricsView task : snapshot.tasks()) {
            String[] labels = taskLabels(tm, task);
            TaskMetricsSample sample = task.sample();
            recordsIn.set(sample.getRecordsIn(), labels);
            recordsOut.set(sample.getRecordsOut(), labels);
            busy.set(task.busyNanos() / 1e9, labels);
            backpressured.set(sample.getBackpressuredNanos() / 1e9, labels);
            idle.set(sample.getIdleNanos() / 1e9, labels);
            attempt.set(task.attempt().getAttempt(), labels);
        }
        userMetrics(families, tm, snapshot.tasks());

        Families.Gauge files = families.gauge("duraflow_file_merging_files", "Merged checkpoint files this"
                + " TaskManager knows of a job", null, FILES);
        Families.Gauge open = families.gauge("duraflow_file_merging_open_files", "Merged checkpoint files that still"
                + " take segments", null, FILES);
        Families.Gauge pooled = families.gauge("duraflow_file_merging_pool_files", "Merged checkpoint files the file"
                + " pools keep open for further segments (each pool at most max-file-pool-size)", null, FILES);
        Families.Counter unpooled = families.counter("duraflow_file_merging_unpooled_files", "Merged checkpoint files"
                + " opened outside a pool at its bound, for one segment each, by the job's open runs", null, FILES);
        Families.Gauge physical = families.gauge("duraflow_file_merging_physical_bytes", "Bytes of the merged"
                + " checkpoint files", Unit.BYTES, FILES);
        Families.Gauge live = families.gauge("duraflow_file_merging_live_bytes", "Bytes of their segments that a"
                + " retained checkpoint still uses", Unit.BYTES, FILES);
        Families.Gauge amplification = families.gauge("duraflow_file_merging_space_amplification_ratio", "Physical"
                + " bytes of the merged checkpoint files per live byte (1: no waste); left out while nothing is"
                + " live", Unit.RATIO, FILES);
        for (Map.Entry<String, SpaceUsage> job : mergedFiles.entrySet()) {
            SpaceUsage usage = job.getValue();
            files.set(usage.files(), tm, job.getKey());
            open.set(usage.openFiles(), tm, job.getKey());
            pooled.set(usage.pooledFiles(), tm, job.getKey());
            unpooled.set(usage.unpooledFiles(), tm, job.getKey());
            physical.set(usage.physicalBytes(), tm, job.getKey());
            live.set(usage.liveBytes(), tm, job.getKey());
            if (usage.liveBytes() > 0) {
                amplification.set(usage.amplification(), tm, job.getKey());
            }
        }
        return families.build();
    }

    /** The values of {@link #TASK}'s labels for a task. */
    private static String[] taskLabels(String tm, TaskMetricsView task) {
        return new String[] {tm, task.attempt().getJobId(), task.jobName(), Integer.toString(task.attempt().getVertex()),
            task.vertexName(), Integer.toString(task.attempt().getSubtask())};
    }

    /** A family of user metrics and the labels its first sample declared it with. */
    private record UserFamily(MetricSample.Kind kind, List<String> labelNames, Families.Family<?> family) {}

    /**
     * The user metrics of every task, one family per name; a sample whose kind or label names differ
     * from the family's first (two jobs that use a name each their own way) is left out, at DEBUG.
     */
    private static void userMetrics(Families families, String tm, List<TaskMetricsView> tasks) {
        Map<String, UserFamily> declared = new HashMap<>();
        for (TaskMetricsView task : tasks) {
            String[] taskLabels = taskLabels(tm, task);
            for (MetricSample sample : task.userMetrics()) {
                String name = "duraflow_operator_" + sample.name();
                UserFamily family = declared.computeIfAbsent(name, n -> declare(families, n, sample));
                if (family.kind() != sample.kind() || !family.labelNames().equals(sample.labelNames())) {
                    LOG.debug("left out metric {} of {}: its first sample had kind {} and labels {}", name,
                            task.attempt(), family.kind(), family.labelNames());
                    continue;
                }
                List<String> values = new ArrayList<>(List.of(taskLabels));
                values.addAll(sample.labelValues());
                String[] labels = values.toArray(String[]::new);
                if (family.family() instanceof Families.Counter counter) {
                    counter.set(sample.value(), labels);
                } else {
                    ((Families.Gauge) family.family()).set(sample.value(), labels);
                }
            }
        }
    }

    private static UserFamily declare(Families families, String name, MetricSample first) {
        List<String> labelNames = new ArrayList<>(List.of(TASK));
        labelNames.addAll(first.labelNames());
        String[] names = labelNames.toArray(String[]::new);
        Families.Family<?> family = first.kind() == MetricSample.Kind.COUNTER
                ? families.counter(name, first.help(), null, names)
                : families.gauge(name, first.help(), null, names);
        return new UserFamily(first.kind(), first.labelNames(), family);
    }
}
