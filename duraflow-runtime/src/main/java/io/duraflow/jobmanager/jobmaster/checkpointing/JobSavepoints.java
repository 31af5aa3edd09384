package io.duraflow.jobmanager.jobmaster.checkpointing;

import io.duraflow.jobmanager.jobmaster.JobMaster;

import io.duraflow.checkpoint.CheckpointCoordinator;
import io.duraflow.checkpoint.CompletedCheckpoint;
import io.duraflow.fs.FsPath;
import io.duraflow.rpc.Rpc;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Savepoints a user asks for ({@code duraflow savepoint}, {@code duraflow cancel --savepoint}) of a
 * running streaming job. Main thread only, like the {@link JobMaster}.
 *
 * <ol>
 *   <li>Only a streaming job with checkpointing on that runs normally (every task deployed, not
 *       restarting, not ending) takes one; anything else is refused at once with the reason (a
 *       batch job has no JobSavepoints: its job master refuses with {@link #refusedForBatchJob}).</li>
 *   <li>One savepoint at a time: a second request while one is in progress is refused, naming it.</li>
 *   <li>With {@code cancelJob}, periodic checkpoints pause from the trigger on, so no checkpoint
 *       completes after the savepoint (its sinks would commit output that a job restored from the
 *       savepoint writes again). Once the savepoint completed the job is cancelled, and ends
 *       CANCELED. If it fails, the job keeps running, periodic checkpoints resume, and the caller
 *       gets the failure.</li>
 * </ol>
 */
public final class JobSavepoints {
    private static final Logger LOG = LoggerFactory.getLogger(JobSavepoints.class);

    private final String jobId;
    private final CheckpointTriggers triggers;
    private final BooleanSupplier runsNormally;
    private final Runnable cancelJob;

    public JobSavepoints(String jobId, CheckpointTriggers triggers, BooleanSupplier runsNormally, Runnable cancelJob) {
        this.jobId = jobId;
        this.triggers = triggers;
        this.runsNormally = runsNormally;
        this.cancelJob = cancelJob;
    }

    public CompletableFuture<CompletedCheckpoint> trigger(FsPath targetDirectory, boolean cancel) {
        CheckpointCoordinator coordinator = triggers.coordinator();
        if (coordinator == null) {
            return refused("job " + jobId + " runs with checkpointing off, so it takes no savepoints: set"
                    + " execution.checkpointing.interval and execution.checkpointing.dir in its configuration");
        }
        if (!runsNormally.getAsBoolean()) {
            return refused("job " + jobId + " is not running every task now (it is starting, restarting or"
                    + " ending); try again once 'duraflow status " + jobId + "' shows it running");
        }
        Optional<Long> inProgress = coordinator.savepointInProgress();
        if (inProgress.isPresent()) {
            return refused("savepoint " + inProgress.get() + " of job " + jobId + " is in progress already; wait"
                    + " for it ('duraflow checkpoints " + jobId + "' shows it)");
        }
        if (cancel) {
            triggers.pausePeriodic();
        }
        LOG.info("Job {}: savepoint into {} requested{}", jobId, targetDirectory, cancel ? ", then cancel" : "");
        return coordinator.triggerSavepoint(targetDirectory).whenComplete((savepoint, error) -> {
            if (!cancel) {
                return;
            }
            if (error != null) {
                LOG.warn("Job {}: the savepoint before cancelling failed ({}); the job keeps running", jobId,
                        Rpc.describe(error));
                triggers.resumePeriodic();
            } else {
                LOG.info("Job {}: {} completed; cancelling the job", jobId, savepoint);
                cancelJob.run();
            }
        });
    }

    /** The refusal of a savepoint of a batch job, which takes none. */
    public static CompletableFuture<CompletedCheckpoint> refusedForBatchJob(String jobId) {
        return refused("job " + jobId + " is a batch job: it takes no savepoints");
    }

    private static CompletableFuture<CompletedCheckpoint> refused(String message) {
        return CompletableFuture.failedFuture(new SavepointRefusedException(message));
    }
}
