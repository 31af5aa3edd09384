package io.duraflow.jobmanager.jobmaster.failover;

import io.duraflow.jobmanager.jobmaster.execution.Execution;
import io.duraflow.jobmanager.jobmaster.JobMaster;

import io.duraflow.jobmanager.recovery.ReportedTask;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * What the leader's side does with the tasks TaskManagers kept across a leader change while a
 * recovered streaming job takes them over ({@link JobMaster#startTakingOver}). Main thread.
 */
public interface TakeoverActions {
    /**
     * Cancels kept tasks that are not adopted; completes on the main thread once every one of them
     * stopped (its TaskManager no longer runs it, or is gone).
     */
    CompletableFuture<Void> cancel(List<ReportedTask> tasks);

    /**
     * Tells the TaskManagers that these executions are this leader's now; completes on the main
     * thread once every TaskManager answered (one that could not be told fails its tasks, see
     * {@link JobMaster#adoptionFailed}).
     */
    CompletableFuture<Void> adopt(List<Execution> adopted);
}
