package io.duraflow.jobmanager.jobmaster.checkpointing;

import io.duraflow.jobmanager.jobmaster.execution.Execution;
import io.duraflow.jobmanager.jobmaster.execution.ExecutionGraph;
import io.duraflow.jobmanager.jobmaster.execution.ExecutionState;
import io.duraflow.jobmanager.jobmaster.JobMaster;

import io.duraflow.checkpoint.CheckpointCoordinator;
import io.duraflow.checkpoint.CheckpointFailure;
import io.duraflow.checkpoint.CheckpointFailureReason;
import io.duraflow.checkpoint.CheckpointMetrics;
import io.duraflow.checkpoint.CheckpointStats;
import io.duraflow.checkpoint.CheckpointTask;
import io.duraflow.checkpoint.CompletedCheckpoint;
import io.duraflow.plan.JobGraph;
import io.duraflow.rpc.Rpc;
import io.duraflow.state.TaskStateSnapshot;
import io.duraflow.mailbox.Mailbox;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When a streaming job's checkpoints are triggered besides the coordinator's own timer: the
 * periodic trigger starts once the whole job runs, and the final checkpoints follow the end of
 * the tasks' input. Holds the job's {@link CheckpointCoordinator} (null: batch, or checkpointing
 * off) and stops its triggers when the job restarts. Main thread only, like the {@link JobMaster}.
 */
public final class CheckpointTriggers {
    private static final Logger LOG = LoggerFactory.getLogger(CheckpointTriggers.class);

    private final String jobId;
    private final ExecutionGraph executions;
    private final JobGraph graph;
    /** Streaming with checkpointing on; null otherwise. */
    private CheckpointCoordinator checkpoints;
    private boolean periodicStarted;
    /** Current attempts that reported the end of their input, since the last (re)start. */
    private final Set<CheckpointTask> inputEnded = new HashSet<>();
    /**
     * The coordinator's {@link CheckpointCoordinator#startMark} when the last of {@link #inputEnded}
     * was reported: a checkpoint started after it reaches every task of that set after its end.
     */
    private long startMarkAtLastEnd = Long.MAX_VALUE;
    /** A final checkpoint was triggered and has not ended yet. */
    private boolean finalInFlight;
    /**
     * A final checkpoint failed and is tried again after {@link #FINAL_RETRY_DELAY_MS}, or when a
     * task finishes if that is sooner: nothing triggers before.
     */
    private boolean retryScheduled;
    /**
     * The tasks with ended input when the last final checkpoint was triggered, or null: while they
     * finish one by one, those left need no other.
     */
    private Set<CheckpointTask> finalTriggeredFor;
    /**
     * The tasks a completed final checkpoint covered: each finishes once it hears of it. Until
     * the JobManager hears that, none is triggered: the next stage may end its input first (the
     * tasks before it finished on their TaskManager), and a checkpoint planned then would start at
     * tasks already gone and fail. A task that has not said so {@value #FINAL_RETRY_DELAY_MS} ms
     * after the checkpoint completed (its notification lost, say) holds nothing back any more: a
     * checkpoint then includes it again, and its completion lets it finish.
     */
    private Set<CheckpointTask> finishing = Set.of();
    /** Counts restarts, so a final checkpoint's outcome that arrives after one is ignored. */
    private long restarts;
    /**
     * The job ended or was suspended ({@link #shutdown}): nothing is triggered or tried again. Its
     * tasks may be cancelled rather than finished, so without this a final checkpoint aborted by
     * the shutdown would be tried again every {@link #FINAL_RETRY_DELAY_MS} ms for good.
     */
    private boolean shutDown;
    private final Mailbox mainThread;

    /** How soon a final checkpoint that did not complete is tried again. */
    public static final long FINAL_RETRY_DELAY_MS = 200;

    public CheckpointTriggers(ExecutionGraph executions, Mailbox mainThread) {
        this.mainThread = mainThread;
        this.jobId = executions.jobId();
        this.executions = executions;
        this.graph = executions.jobGraph();
    }

    public void coordinator(CheckpointCoordinator checkpoints) {
        this.checkpoints = checkpoints;
    }

    /** The job's checkpoint coordinator, or null (batch, or checkpointing off). */
    public CheckpointCoordinator coordinator() {
        return checkpoints;
    }

    /** The coordinator's recent checkpoints, oldest first; empty without checkpointing. */
    public List<CheckpointStats> history() {
        return checkpoints == null ? List.of() : checkpoints.history();
    }

    /** A task's part of a checkpoint is durable; also after the job ended (its files are deleted). */
    public void acknowledge(CheckpointTask task, long checkpointId, TaskStateSnapshot state, CheckpointMetrics metrics) {
        if (checkpoints == null) {
            LOG.warn("Job {}: acknowledgement of checkpoint {} by {}, but the job takes no checkpoints: ignored",
                    jobId, checkpointId, task);
            return;
        }
        checkpoints.acknowledge(task, checkpointId, state, metrics);
    }

    /** A task will not take its part of a checkpoint: the checkpoint is aborted. */
    public void decline(CheckpointTask task, long checkpointId, CheckpointFailure failure) {
        if (checkpoints != null) {
            checkpoints.decline(task, checkpointId, failure.reason(), failure.message());
        }
    }

    /** An execution of a job that runs normally now runs: maybe the whole job does. */
    public void executionRunning() {
        startPeriodicIfAllRun(false);
    }

    /**
     * A new leader adopted the job's running tasks: the first periodic checkpoint comes
     * at once, as their committed output waits for one since the old leader's last.
     */
    public void adopted() {
        startPeriodicIfAllRun(true);
    }

    private void startPeriodicIfAllRun(boolean firstNow) {
        if (checkpoints != null && !periodicStarted
                && executions.all().stream().allMatch(e -> e.state() == ExecutionState.RUNNING)) {
            // Else the first periodic trigger comes one interval after the whole job runs.
            periodicStarted = true;
            checkpoints.startPeriodic(firstNow);
        }
    }

    /** The current attempt of {@code execution} processed all its input (see {@link JobMaster#onInputEnded}). */
    public void inputEnded(Execution execution) {
        inputEnded.add(StreamingCheckpoints.task(execution));
        if (checkpoints != null) {
            startMarkAtLastEnd = checkpoints.startMark();
        }
        maybeTriggerFinal();
    }

    /**
     * The current attempt of {@code execution} finished: checkpoints still waiting for it are
     * aborted (it will never take its part), and the tasks left may be ready for a final checkpoint.
     * A final checkpoint that failed is tried again at once rather than after its retry delay: a
     * task's end changes the plan, and the failure was most likely this end (a final checkpoint
     * triggered at the task while its report was on its way, aborted right here).
     */
    public void executionFinished(Execution execution) {
        if (checkpoints != null) {
            checkpoints.taskFinished(StreamingCheckpoints.task(execution));
        }
        retryScheduled = false;
        maybeTriggerFinal();
    }

    /**
     * Triggers a final checkpoint when every running task a checkpoint would start at (a source, or
     * a task whose producers all finished) has ended its input: the checkpoint lets them finish,
     * which ends the input of the tasks after them, and so on down the job (a checkpoint after its
     * end lets a sink commit and the job finish). Waiting for the tasks after them too would leave
     * a job of three or more stages to the periodic trigger at every stage. Once per such set of
     * tasks (not again as they finish one by one); a final checkpoint that fails (say, a task
     * finished while it was planned) is tried again {@value #FINAL_RETRY_DELAY_MS} ms later, or at
     * once when a task finishes, not only at the next interval. Nothing is triggered while a task
     * a completed final checkpoint covered has not reported its end yet ({@link #finishing}). A
     * checkpoint in progress that started after the last of these tasks reported its end (a periodic one)
     * reaches each of them after its end, so it is the final checkpoint: its outcome is awaited
     * instead of triggering another beside it (which the concurrency limit would not hold back).
     */
    private void maybeTriggerFinal() {
        boolean anyRunning = false;
        boolean startsEnded = true;
        Set<CheckpointTask> ended = new HashSet<>();
        for (Execution each : executions.all()) {
            if (each.state() == ExecutionState.FINISHED) {
                continue;
            }
            anyRunning = true;
            CheckpointTask task = StreamingCheckpoints.task(each);
            if (finishing.contains(task)) {
                return; // its end is on its way, and calls again
            }
            boolean hasEnded = inputEnded.contains(task);
            if (hasEnded) {
                ended.add(task);
            } else if (startsEnded && StreamingCheckpoints.producersFinished(graph, executions, each.vertex())) {
                startsEnded = false;
            }
        }
        boolean ready = anyRunning && startsEnded;
        boolean covered = finalTriggeredFor != null && finalTriggeredFor.containsAll(ended);
        if (shutDown || !ready || finalInFlight || retryScheduled || covered) {
            return;
        }
        String why = "every running task a checkpoint starts at ended its input";
        if (checkpoints == null) {
            LOG.info("Job {}: {}, and it takes no checkpoints", jobId, why);
            finalTriggeredFor = ended;
            return;
        }
        Optional<CompletableFuture<CompletedCheckpoint>> started =
                checkpoints.pendingCheckpointStartedAfter(startMarkAtLastEnd);
        if (started.isPresent()) {
            LOG.info("Job {}: {}: the checkpoint in progress, started after that, is the final one", jobId, why);
        } else {
            LOG.info("Job {}: {}: triggering a final checkpoint", jobId, why);
        }
        finalInFlight = true;
        finalTriggeredFor = ended;
        long restarts = this.restarts;
        started.orElseGet(checkpoints::triggerCheckpoint).whenComplete((completed, error) -> {
            if (restarts != this.restarts || shutDown) {
                return; // the job restarted meanwhile (its input starts over), or it ended
            }
            finalInFlight = false;
            if (error != null) {
                LOG.info("Job {}: the final checkpoint did not complete ({}); trying again in {} ms", jobId,
                        Rpc.describe(error), FINAL_RETRY_DELAY_MS);
                finalTriggeredFor = null;
                retryScheduled = true;
                mainThread.schedule(() -> {
                    if (restarts == this.restarts) {
                        retryScheduled = false;
                        maybeTriggerFinal();
                    }
                }, FINAL_RETRY_DELAY_MS);
            } else {
                Set<CheckpointTask> tookIt = finalTriggeredFor;
                finishing = tookIt;
                mainThread.schedule(() -> {
                    if (restarts == this.restarts && finishing == tookIt && !shutDown) {
                        finishing = Set.of();
                        maybeTriggerFinal();
                    }
                }, FINAL_RETRY_DELAY_MS);
                maybeTriggerFinal();
            }
        });
    }

    /** The job restarts: no checkpoint until it runs again, and the tasks' input starts over. */
    public void restartBegins(String cause) {
        if (checkpoints != null) {
            periodicStarted = false;
            checkpoints.stopPeriodic();
            checkpoints.abortPending(CheckpointFailureReason.JOB_FAILOVER, "the job restarts: " + cause);
        }
        inputEnded.clear();
        startMarkAtLastEnd = Long.MAX_VALUE;
        finalInFlight = false;
        retryScheduled = false;
        finalTriggeredFor = null;
        finishing = Set.of();
        restarts++;
    }

    /** No periodic checkpoint until {@link #resumePeriodic} (a savepoint before cancelling: none may follow it). */
    void pausePeriodic() {
        if (checkpoints != null && periodicStarted) {
            checkpoints.stopPeriodic();
        }
    }

    /** Periodic checkpoints go on after {@link #pausePeriodic}, unless the job restarted meanwhile (it starts them). */
    void resumePeriodic() {
        if (checkpoints != null && periodicStarted && !shutDown) {
            checkpoints.startPeriodic();
        }
    }

    /** No more checkpoints; completes once none is finalizing ({@link CheckpointCoordinator#shutdown()}). */
    public CompletableFuture<Void> shutdown() {
        shutDown = true;
        return checkpoints != null ? checkpoints.shutdown() : CompletableFuture.completedFuture(null);
    }
}
