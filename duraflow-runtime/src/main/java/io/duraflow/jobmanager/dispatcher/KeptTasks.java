package io.duraflow.jobmanager.dispatcher;

import io.duraflow.jobmanager.jobmaster.JobMaster;
import io.duraflow.jobmanager.jobmaster.execution.Execution;
import io.duraflow.jobmanager.recovery.ReportedTask;
import io.duraflow.jobmanager.resourcemanager.ResourceManager;
import io.duraflow.rpc.Rpc;
import io.duraflow.rpc.proto.AttemptId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Hands the tasks that TaskManagers kept running across a leader change to the recovered job's
 * master, for the batch recovery ({@link BatchRecoveryWait}) and the streaming take-over ({@link
 * StreamingTakeover}) alike: tells each TaskManager which of its kept tasks were adopted, and
 * cancels those nobody adopts. Which tasks are adopted is the job master's and the planners'
 * decision, not this class's.
 *
 * <p>Threading: main thread; {@link #tellAdopted}'s future completes on the main thread.
 */
final class KeptTasks {
    private final ResourceManager resourceManager;

    KeptTasks(ResourceManager resourceManager) {
        this.resourceManager = resourceManager;
    }

    /**
     * Tells each TaskManager which of its kept tasks this leader adopted ({@code AdoptTasks}); the
     * tasks of one it cannot tell fail here and run again as failures do. Completes on the main
     * thread once every TaskManager answered or failed.
     */
    CompletableFuture<Void> tellAdopted(JobMaster job, List<Execution> adopted) {
        Map<String, List<AttemptId>> byTm = new LinkedHashMap<>();
        for (Execution execution : adopted) {
            byTm.computeIfAbsent(execution.tmId(), tm -> new ArrayList<>()).add(execution.attemptId());
        }
        List<CompletableFuture<Void>> told = new ArrayList<>();
        byTm.forEach((tmId, attempts) -> {
            CompletableFuture<Void> answered = new CompletableFuture<>();
            told.add(answered);
            resourceManager.adopt(tmId, attempts, () -> answered.complete(null), error -> {
                job.adoptionFailed(attempts, "TaskManager " + tmId + " could not be told that it was adopted: "
                        + Rpc.message(error));
                answered.complete(null);
            });
        });
        return CompletableFuture.allOf(told.toArray(CompletableFuture[]::new));
    }

    /**
     * Cancels the given kept tasks of a job on the TaskManagers that reported them; completes on
     * the main thread once every one of them stopped (or its TaskManager is gone).
     */
    CompletableFuture<Void> cancel(String jobId, List<ReportedTask> reports) {
        List<CompletableFuture<Void>> stopped = new ArrayList<>();
        for (ReportedTask report : reports) {
            stopped.add(resourceManager.cancelHeld(report.tmId(), attemptOf(jobId, report)));
        }
        return CompletableFuture.allOf(stopped.toArray(CompletableFuture[]::new));
    }

    /** Kept running tasks of a job that is not recovered with them: cancelled. */
    void cancelKeptTasks(String jobId) {
        cancel(jobId, resourceManager.reportedTasks(jobId));
    }

    static AttemptId attemptOf(String jobId, ReportedTask report) {
        return AttemptId.newBuilder().setJobId(jobId).setVertex(report.key().vertex())
                .setSubtask(report.key().subtask()).setAttempt(report.attempt()).build();
    }
}
