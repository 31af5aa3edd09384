package io.duraflow.jobmanager.dispatcher;

import io.duraflow.jobmanager.jobmaster.JobMaster;
import io.duraflow.jobmanager.jobmaster.JobMasterState;
import io.duraflow.jobmanager.jobmaster.execution.Execution;
import io.duraflow.jobmanager.jobmaster.failover.TakeoverActions;
import io.duraflow.jobmanager.recovery.ExecutionKey;
import io.duraflow.jobmanager.resourcemanager.ResourceManager;
import io.duraflow.jobmanager.recovery.ReportedTask;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The streaming part of a take-over ({@link StoredJobRecovery}), when TaskManagers keep their
 * tasks for a new leader: a recovered streaming job waits until its TaskManagers reported every
 * subtask they kept (or its wait is over), then its job master takes them over ({@link
 * JobMaster#startTakingOver}, which decides with the AdoptionPlanner) and acts on the kept tasks
 * through {@link KeptTasks}. A job of which no TaskManager reported anything restores its latest
 * completed checkpoint.
 *
 * <p>Threading: main thread only.
 */
final class StreamingTakeover {
    private static final Logger LOG = LoggerFactory.getLogger(StreamingTakeover.class);

    private final ResourceManager resourceManager;
    private final KeptTasks keptTasks;
    private final Map<String, PendingTakeover> takeovers = new LinkedHashMap<>();

    StreamingTakeover(ResourceManager resourceManager, KeptTasks keptTasks) {
        this.resourceManager = resourceManager;
        this.keptTasks = keptTasks;
    }

    /** A recovered streaming job waiting for its TaskManagers to report the tasks they kept. */
    private static final class PendingTakeover {
        final JobMaster job;
        final long waitMs;
        long deadlineMs = Long.MAX_VALUE;

        PendingTakeover(JobMaster job, long waitMs) {
            this.job = job;
            this.waitMs = waitMs;
        }
    }

    /**
     * The job waits for the reports of its kept tasks until {@code deadlineMs}: {@link
     * Long#MAX_VALUE} before this leader is published, when {@link #start} sets it.
     */
    void await(JobMaster job, long waitMs, long deadlineMs) {
        PendingTakeover takeover = new PendingTakeover(job, waitMs);
        takeover.deadlineMs = deadlineMs;
        takeovers.put(job.jobId(), takeover);
    }

    /** This leader is published: each waiting job's wait starts now. */
    void start(long nowMs) {
        for (PendingTakeover takeover : takeovers.values()) {
            takeover.deadlineMs = nowMs + takeover.waitMs;
        }
    }

    boolean isEmpty() {
        return takeovers.isEmpty();
    }

    boolean isWaiting(String jobId) {
        return takeovers.containsKey(jobId);
    }

    /** The job no longer waits (it was cancelled); false if it did not wait. */
    boolean remove(String jobId) {
        return takeovers.remove(jobId) != null;
    }

    /**
     * Streaming jobs waiting for their kept tasks: each decides once every subtask is reported by
     * a registered TaskManager, or its wait is over (then it decides over what was reported, which
     * falls back to a restore unless everything is there).
     */
    void check(long now) {
        for (Map.Entry<String, PendingTakeover> entry : new ArrayList<>(takeovers.entrySet())) {
            JobMaster job = entry.getValue().job;
            List<ReportedTask> reports = resourceManager.reportedTasks(job.jobId());
            if (!everySubtaskReported(job, reports) && now < entry.getValue().deadlineMs) {
                continue;
            }
            takeovers.remove(entry.getKey());
            if (job.state() != JobMasterState.CREATED) {
                continue;  // cancelled meanwhile
            }
            if (reports.isEmpty()) {
                LOG.info("Job {}: no TaskManager reported a kept task; it restores its latest completed checkpoint",
                        job.jobId());
                job.start();
                continue;
            }
            job.startTakingOver(reports, takeoverActions(job), resourceManager::address);
        }
    }

    private static boolean everySubtaskReported(JobMaster job, List<ReportedTask> reports) {
        Set<ExecutionKey> reported = new HashSet<>();
        reports.forEach(report -> reported.add(report.key()));
        int subtasks = 0;
        for (var vertex : job.graph().vertices()) {
            subtasks += vertex.parallelism();
        }
        return reported.size() >= subtasks;
    }

    /** How a streaming job's takeover acts on the kept tasks: through the resource manager, like a batch adoption. */
    private TakeoverActions takeoverActions(JobMaster job) {
        String jobId = job.jobId();
        return new TakeoverActions() {
            @Override
            public CompletableFuture<Void> cancel(List<ReportedTask> tasks) {
                return keptTasks.cancel(jobId, tasks);
            }

            @Override
            public CompletableFuture<Void> adopt(List<Execution> adopted) {
                return keptTasks.tellAdopted(job, adopted);
            }
        };
    }
}
