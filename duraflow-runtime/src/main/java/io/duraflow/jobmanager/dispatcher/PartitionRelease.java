package io.duraflow.jobmanager.dispatcher;

import io.duraflow.jobmanager.resourcemanager.ResourceManager;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The cleanup step that releases a terminated job's partitions on every registered TaskManager,
 * as an acknowledged request: it succeeds only once each TaskManager confirmed that it deleted
 * them, or is gone (not registered any more: its partitions went with it). A TaskManager that
 * refuses, or does not answer within the RPC timeout, fails the step, and with it the cleanup
 * attempt, which the cleanup strategy retries; a retry asks the TaskManagers registered then, so
 * one that was lost meanwhile counts as done. Releasing what is already released is a no-op on
 * the TaskManager, so the step is idempotent.
 *
 * <p>Main thread only, like the {@link ResourceManager} it calls.
 */
final class PartitionRelease {
    private final ResourceManager resourceManager;

    PartitionRelease(ResourceManager resourceManager) {
        this.resourceManager = resourceManager;
    }

    /**
     * Asks every registered TaskManager to release the job's partitions.
     *
     * @return completes (on the main thread) once every one confirmed or is gone; fails with the
     *     first TaskManager's failure, but only after every TaskManager answered, so that attempts
     *     never overlap
     */
    CompletableFuture<Void> release(String jobId) {
        Collection<String> taskManagers = resourceManager.taskManagers();
        List<CompletableFuture<Void>> answers = new ArrayList<>(taskManagers.size());
        for (String tmId : taskManagers) {
            CompletableFuture<Void> answer = new CompletableFuture<>();
            answers.add(answer);
            resourceManager.releasePartitions(tmId, jobId, List.of(), error -> {
                if (error == null) {
                    answer.complete(null);
                } else {
                    answer.completeExceptionally(new ReleaseFailedException(tmId, jobId, error));
                }
            });
        }
        return CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new));
    }

    /** A TaskManager did not confirm the release of a job's partitions. */
    static final class ReleaseFailedException extends RuntimeException {
        ReleaseFailedException(String tmId, String jobId, Throwable cause) {
            super("TaskManager " + tmId + " did not confirm the release of job " + jobId + "'s partitions: "
                    + io.duraflow.rpc.Rpc.message(cause), cause);
        }
    }
}
