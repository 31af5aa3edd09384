package io.duraflow.jobmanager;

import io.duraflow.jobmanager.dispatcher.Dispatcher;
import io.duraflow.jobmanager.dispatcher.JobRegistry;
import io.duraflow.jobmanager.resourcemanager.ResourceManager;
import io.duraflow.mailbox.ThreadMailbox;

import io.duraflow.jobmanager.events.JobEventWriter;
import io.duraflow.jobmanager.jobmaster.JobMaster;
import io.duraflow.jobmanager.jobmaster.JobMetrics;
import io.duraflow.jobstore.JobOutcome;
import io.duraflow.jobstore.JobResultStore;
import io.duraflow.rpc.proto.TaskManagerInfo;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JobManager's collector for its Prometheus endpoint. At each scrape it asks the main thread
 * for a {@link Snapshot} (the dispatcher's jobs, the resource manager's TaskManagers, the
 * leadership), an immutable copy of what is there, and turns it into metric families ({@link
 * JobManagerMetricFamilies}) on the scrape thread. Nothing is counted for the metrics on the way:
 * they read the figures the JobManager keeps anyway (job status and task rates from the
 * heartbeats, the checkpoint coordinator's history, the event log writers' counters).
 *
 * <p>The job result store's entries are counted from a listing of its directory, on the scrape
 * thread, at most every {@link #RESULT_STORE_REFRESH_MS}, and only while leading.
 */
public final class JobManagerMetrics implements MultiCollector {
    private static final Logger LOG = LoggerFactory.getLogger(JobManagerMetrics.class);
    /** How long a scrape waits for the main thread before it answers without the JobManager's figures. */
    static final long MAIN_THREAD_TIMEOUT_MS = 5_000;
    static final long RESULT_STORE_REFRESH_MS = 10_000;

    /** An ended or running job's event log writer, as the metrics see it. */
    record EventLog(long writtenBytes, long writtenEvents, long droppedEvents, boolean recording) {
        static EventLog of(JobEventWriter writer) {
            return new EventLog(writer.writtenBytes(), writer.writtenEvents(), writer.droppedEvents(),
                    !writer.disabled());
        }
    }

    /** One job of this leader: its figures, whether it was taken over from an earlier leader, its event log or null. */
    record Job(JobMetrics metrics, boolean recovered, EventLog eventLog) {}

    /**
     * What the main thread hands to a scrape.
     *
     * @param leaderSinceMs when the current leadership began; 0 while standing by
     * @param jobs the jobs of the current leadership without a durable result yet; empty on a standby
     * @param taskManagers the registered TaskManagers as of their last heartbeats; empty on a standby
     * @param resultsStored results made durable under the current leadership, by outcome
     */
    record Snapshot(long nowMs, boolean leading, long leaderships, long leaderSinceMs, List<Job> jobs,
            List<TaskManagerInfo> taskManagers, Map<JobOutcome, Long> resultsStored) {
        Snapshot {
            jobs = List.copyOf(jobs);
            taskManagers = List.copyOf(taskManagers);
            resultsStored = Map.copyOf(resultsStored);
        }
    }

    private final ThreadMailbox mainThread;
    private final Callable<Snapshot> snapshot;
    private final JobResultStore resultStore;
    private final LongSupplier clockMs;
    /** The last counts of the result store and when they were taken; scrape thread only. */
    private JobResultStore.EntryCounts resultCounts;
    private long resultCountsAtMs;

    /**
     * @param snapshot runs on the main thread and copies what a scrape needs
     */
    JobManagerMetrics(ThreadMailbox mainThread, Callable<Snapshot> snapshot, JobResultStore resultStore,
            LongSupplier clockMs) {
        this.mainThread = mainThread;
        this.snapshot = snapshot;
        this.resultStore = resultStore;
        this.clockMs = clockMs;
    }

    /**
     * Main thread: the snapshot of a JobManager that leads with {@code dispatcher} and {@code
     * resourceManager} (both null while standing by).
     */
    static Snapshot snapshot(long nowMs, Dispatcher dispatcher, ResourceManager resourceManager, long leaderships,
            long leaderSinceMs) {
        if (dispatcher == null) {
            return new Snapshot(nowMs, false, leaderships, 0, List.of(), List.of(), Map.of());
        }
        JobRegistry registry = dispatcher.registry();
        List<Job> jobs = new ArrayList<>();
        for (JobMaster job : registry.jobs()) {
            boolean recovered = dispatcher.recovered(job.jobId());
            JobEventWriter writer = registry.eventWriter(job.jobId());
            jobs.add(new Job(job.metrics(recovered), recovered, writer == null ? null : EventLog.of(writer)));
        }
        return new Snapshot(nowMs, true, leaderships, leaderSinceMs, jobs, resourceManager.describe(),
                registry.resultsStored());
    }

    @Override
    public MetricSnapshots collect() {
        Snapshot taken;
        try {
            taken = mainThread.call(snapshot).get(MAIN_THREAD_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return MetricSnapshots.of();
        } catch (ExecutionException | TimeoutException e) {
            // The JVM's metrics still go out; the JobManager's are missing from this one scrape.
            LOG.warn("A metrics scrape got no answer from the JobManager's main thread: {}", e.toString());
            return MetricSnapshots.of();
        }
        return JobManagerMetricFamilies.of(taken, taken.leading() ? resultCounts() : null);
    }

    /** The result store's counts, listed again once they are older than the refresh interval; null if that fails. */
    private synchronized JobResultStore.EntryCounts resultCounts() {
        long now = clockMs.getAsLong();
        if (resultCounts == null || now - resultCountsAtMs >= RESULT_STORE_REFRESH_MS) {
            try {
                resultCounts = resultStore.countEntries();
            } catch (Exception e) {
                LOG.debug("Cannot count the job result store's entries: {}", e.toString());
                resultCounts = null;
            }
            resultCountsAtMs = now;
        }
        return resultCounts;
    }
}
