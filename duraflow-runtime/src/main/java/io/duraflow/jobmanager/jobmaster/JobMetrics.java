package io.duraflow.jobmanager.jobmaster;

import io.duraflow.checkpoint.CheckpointTotals;
import io.duraflow.rpc.proto.JobStatus;

/**
 * What the metrics endpoint reads of one job, taken on the main thread and immutable after: the
 * status {@code duraflow status} shows (state, times, restarts, per vertex records and rates) and
 * what only the metrics show.
 *
 * @param status the job's status as {@link JobMaster#status()} builds it
 * @param streaming whether it is a streaming job
 * @param tasksToRunAgain after a recovery by this leader: the tasks that run again (batch: those
 *     an earlier leader had started that kept no output; streaming: every task, restored from the
 *     latest checkpoint); 0 otherwise
 * @param firstTaskRunningAtMs when the first task of this JobMaster was reported running, 0 before
 * @param checkpoints what the checkpoint coordinator counted, or null (batch, or checkpointing off)
 */
public record JobMetrics(JobStatus status, boolean streaming, int tasksToRunAgain, long firstTaskRunningAtMs,
        CheckpointTotals checkpoints) {
}
