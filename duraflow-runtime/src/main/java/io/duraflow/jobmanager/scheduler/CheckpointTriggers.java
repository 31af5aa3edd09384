package io.duraflow.jobmanager.scheduler;

import io.duraflow.checkpoint.CheckpointCoordinator;
import io.duraflow.checkpoint.CheckpointFailure;
import io.duraflow.checkpoint.CheckpointFailureReason;
import io.duraflow.checkpoint.CheckpointMetrics;
import io.duraflow.checkpoint.CheckpointStats;
import io.duraflow.checkpoint.CheckpointTask;
import io.duraflow.plan.JobGraph;
import io.duraflow.rpc.Rpc;
import io.duraflow.state.TaskStateSnapshot;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When a streaming job's checkpoints are triggered besides the coordinator's own timer: the
 * periodic trigger starts once the whole job runs, and the final checkpoints follow the end of
 * the tasks' input. Holds the job's {@link CheckpointCoordinator} (null: batch, or checkpointing
 * off) and stops its triggers when the job restarts. Main thread only, like the {@link JobMaster}.
 */
final class CheckpointTriggers {
    private static final Logger LOG = LoggerFactory.getLogger(CheckpointTriggers.class);

    private final String jobId;
    private final ExecutionGraph executions;
    private final JobGraph graph;
    /** Streaming with checkpointing on; null otherwise. */
    private CheckpointCoordinator checkpoints;
    private boolean periodicStarted;
    /** Current attempts that reported the end of their input, since the last (re)start. */
    private final Set<CheckpointTask> inputEnded = new HashSet<>();
    private boolean finalCheckpointAfterSources;
    private boolean finalCheckpointAfterAll;

    CheckpointTriggers(ExecutionGraph executions) {
        this.jobId = executions.jobId();
        this.executions = executions;
        this.graph = executions.jobGraph();
    }

    void coordinator(CheckpointCoordinator checkpoints) {
        this.checkpoints = checkpoints;
    }

    /** The job's checkpoint coordinator, or null (batch, or checkpointing off). */
    CheckpointCoordinator coordinator() {
        return checkpoints;
    }

    /** The coordinator's recent checkpoints, oldest first; empty without checkpointing. */
    List<CheckpointStats> history() {
        return checkpoints == null ? List.of() : checkpoints.history();
    }

    /** A task's part of a checkpoint is durable; also after the job ended (its files are deleted). */
    void acknowledge(CheckpointTask task, long checkpointId, TaskStateSnapshot state, CheckpointMetrics metrics) {
        if (checkpoints == null) {
            LOG.warn("Job {}: acknowledgement of checkpoint {} by {}, but the job takes no checkpoints: ignored",
                    jobId, checkpointId, task);
            return;
        }
        checkpoints.acknowledge(task, checkpointId, state, metrics);
    }

    /** A task will not take its part of a checkpoint: the checkpoint is aborted. */
    void decline(CheckpointTask task, long checkpointId, CheckpointFailure failure) {
        if (checkpoints != null) {
            checkpoints.decline(task, checkpointId, failure.reason(), failure.message());
        }
    }

    /** An execution of a job that runs normally now runs: maybe the whole job does. */
    void executionRunning() {
        if (checkpoints != null && !periodicStarted
                && executions.all().stream().allMatch(e -> e.state() == ExecutionState.RUNNING)) {
            // The first periodic trigger comes one interval after the whole job runs.
            periodicStarted = true;
            checkpoints.startPeriodic();
        }
    }

    /** The current attempt of {@code execution} processed all its input (see {@link JobMaster#onInputEnded}). */
    void inputEnded(Execution execution) {
        inputEnded.add(StreamingCheckpoints.task(execution));
        boolean sourcesEnded = true;
        boolean allEnded = true;
        for (Execution each : executions.all()) {
            boolean ended = inputEnded.contains(StreamingCheckpoints.task(each));
            allEnded &= ended;
            sourcesEnded &= ended || !graph.vertex(each.vertex()).isSource();
        }
        if (sourcesEnded && !finalCheckpointAfterSources) {
            finalCheckpointAfterSources = true;
            triggerFinalCheckpoint("every source task ended its input");
        } else if (allEnded && !finalCheckpointAfterAll) {
            finalCheckpointAfterAll = true;
            triggerFinalCheckpoint("every task ended its input");
        }
        if (allEnded) {
            finalCheckpointAfterAll = true;
        }
    }

    private void triggerFinalCheckpoint(String why) {
        if (checkpoints == null) {
            LOG.info("Job {}: {}, and it takes no checkpoints", jobId, why);
            return;
        }
        LOG.info("Job {}: {}: triggering the final checkpoint", jobId, why);
        checkpoints.triggerCheckpoint().whenComplete((completed, error) -> {
            if (error != null) {
                LOG.warn("Job {}: the final checkpoint failed ({}); the next one serves", jobId,
                        Rpc.describe(error));
            }
        });
    }

    /** The job restarts: no checkpoint until it runs again, and the tasks' input starts over. */
    void restartBegins(String cause) {
        if (checkpoints != null) {
            periodicStarted = false;
            checkpoints.stopPeriodic();
            checkpoints.abortPending(CheckpointFailureReason.JOB_FAILOVER, "the job restarts: " + cause);
        }
        inputEnded.clear();
        finalCheckpointAfterSources = false;
        finalCheckpointAfterAll = false;
    }

    void shutdown() {
        if (checkpoints != null) {
            checkpoints.shutdown();
        }
    }
}
