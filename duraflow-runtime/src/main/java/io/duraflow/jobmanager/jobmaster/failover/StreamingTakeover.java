package io.duraflow.jobmanager.jobmaster.failover;

import io.duraflow.jobmanager.jobmaster.execution.Execution;
import io.duraflow.jobmanager.jobmaster.execution.ExecutionGraph;
import io.duraflow.jobmanager.jobmaster.checkpointing.CheckpointTriggers;
import io.duraflow.jobmanager.jobmaster.checkpointing.StreamingCheckpoints;

import io.duraflow.checkpoint.CheckpointCoordinator;
import io.duraflow.checkpoint.CheckpointFailure;
import io.duraflow.checkpoint.CheckpointFailureReason;
import io.duraflow.checkpoint.CheckpointTask;
import io.duraflow.checkpoint.CompletedCheckpoint;
import io.duraflow.jobmanager.recovery.AdoptionPlan;
import io.duraflow.jobmanager.recovery.AdoptionPlanner;
import io.duraflow.jobmanager.recovery.ExecutionKey;
import io.duraflow.jobmanager.recovery.ReportedTask;
import io.duraflow.jobmanager.recovery.StreamingCheckpointFacts;
import io.duraflow.jobmanager.recovery.TaskDecision;
import io.duraflow.plan.JobGraph;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.IntConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A new leader takes over a recovered streaming job whose TaskManagers kept its tasks running: the
 * job is adopted whole or not at all, as {@link AdoptionPlanner#planStreaming} decides. Main thread
 * only, like the JobMaster. See docs/design/leader-change-adoption.md#streamingtakeover.
 */
public final class StreamingTakeover implements StreamingRestart.Takeover {
    private static final Logger LOG = LoggerFactory.getLogger(StreamingTakeover.class);
    /** At most this many ids above L are aborted at the tasks: only the newest can still be aligning. */
    private static final int ABORTED_IDS = 8;

    private final String jobId;
    private final JobGraph graph;
    private final ExecutionGraph executions;
    private final StreamingCheckpoints checkpointTasks;
    private final CheckpointTriggers triggers;
    private final List<ReportedTask> reports;
    private final TakeoverActions actions;
    /** Runs a step on the main thread, failing the job if it throws (the JobMaster's guarded). */
    private final Function<Runnable, Runnable> guarded;
    private final IntConsumer adoptedCount;
    /** host:port of a registered TaskManager. */
    private final Function<String, String> tmAddress;
    private final List<Execution> adopted = new ArrayList<>();
    private AdoptionPlan plan;
    private String runId;
    private CompletableFuture<Void> replacedStopped = CompletableFuture.completedFuture(null);

    public StreamingTakeover(String jobId, JobGraph graph, ExecutionGraph executions, StreamingCheckpoints checkpointTasks,
            CheckpointTriggers triggers, List<ReportedTask> reports, TakeoverActions actions,
            Function<Runnable, Runnable> guarded, IntConsumer adoptedCount, Function<String, String> tmAddress) {
        this.jobId = jobId;
        this.graph = graph;
        this.executions = executions;
        this.checkpointTasks = checkpointTasks;
        this.triggers = triggers;
        this.reports = List.copyOf(reports);
        this.actions = actions;
        this.guarded = guarded;
        this.adoptedCount = adoptedCount;
        this.tmAddress = tmAddress;
    }

    @Override
    public String decide(CheckpointCoordinator.RestorePoint point) {
        long id = point.checkpoint().map(CompletedCheckpoint::checkpointId).orElse(0L);
        StreamingCheckpointFacts facts = point.initial() ? new StreamingCheckpointFacts(0, id)
                : new StreamingCheckpointFacts(id, 0);
        plan = AdoptionPlanner.planStreaming(graph, facts, reports, Set.of());
        boolean detail = plan.notes().size() <= 64;
        for (int i = 0; i < plan.notes().size(); i++) {
            if (i == 0 || detail) {
                LOG.info("Job {}: {}", jobId, plan.notes().get(i));
            } else {
                LOG.debug("Job {}: {}", jobId, plan.notes().get(i));
            }
        }
        if (plan.outcome() != AdoptionPlan.Outcome.ADOPT_ALL) {
            for (TaskDecision.Restart restart : plan.restarted()) {
                executions.executions(restart.key().vertex())[restart.key().subtask()].restoreAttempt(restart.attempt());
            }
            replacedStopped = actions.cancel(reports);
            LOG.info("Job {}: the {} kept tasks are cancelled; once they stopped, every task restores {}", jobId,
                    reports.size(), id == 0 ? "empty state" : "checkpoint " + id);
            return null;
        }
        for (TaskDecision decision : plan.decisions().values()) {
            ExecutionKey key = decision.key();
            ReportedTask current = currentReport(key, decision);
            runId = ((ReportedTask.StreamingProgress) current.progress()).runId();
            Execution execution = executions.executions(key.vertex())[key.subtask()];
            execution.adoptRunning(current.attempt(), current.tmId(), tmAddress.apply(current.tmId()));
            adopted.add(execution);
        }
        // Older attempts a TaskManager still ran (of an earlier run, being cancelled) hold slots: they go.
        actions.cancel(plan.toCancel());
        adoptedCount.accept(adopted.size());
        return runId;
    }

    @Override
    public CompletableFuture<Void> replacedTasksStopped() {
        return replacedStopped;
    }

    private ReportedTask currentReport(ExecutionKey key, TaskDecision decision) {
        int attempt = decision instanceof TaskDecision.Adopt adopt ? adopt.attempt()
                : ((TaskDecision.AlreadyFinished) decision).attempt();
        for (ReportedTask report : reports) {
            if (report.key().equals(key) && report.attempt() == attempt) {
                return report;
            }
        }
        throw new IllegalStateException("the adoption plan adopts " + key + "#" + attempt + ", which nobody reported");
    }

    @Override
    public void adopted(CheckpointCoordinator.RestorePoint point) {
        long latest = point.checkpoint().filter(c -> !point.initial()).map(CompletedCheckpoint::checkpointId)
                .orElse(0L);
        List<CheckpointTask> toNotify = new ArrayList<>();
        for (ExecutionKey key : plan.notifyCompleted()) {
            toNotify.add(StreamingCheckpoints.task(executions.executions(key.vertex())[key.subtask()]));
        }
        checkpointTasks.notifyCheckpointComplete(toNotify, latest, 0);
        long from = Math.max(point.checkpoint().map(CompletedCheckpoint::checkpointId).orElse(0L) + 1,
                point.nextId() - ABORTED_IDS);
        for (long id = from; id < point.nextId(); id++) {
            CheckpointFailure failure = new CheckpointFailure(id, CheckpointFailureReason.JOB_FAILOVER,
                    "the JobManager that triggered it is gone; a new leader adopted the job's tasks", null);
            checkpointTasks.notifyCheckpointAborted(adopted.stream().map(StreamingCheckpoints::task).toList(), id,
                    failure);
        }
        LOG.info("Job {}: adopted all {} tasks of run {}; they go on from {}{}", jobId, adopted.size(),
                runId, latest == 0 ? "their start" : "checkpoint " + latest,
                point.nextId() > from ? ", checkpoints " + from + "-" + (point.nextId() - 1) + " aborted" : "");
        actions.adopt(adopted).whenComplete((ignored, error) -> guarded.apply(() -> {
            // Every TaskManager knows its tasks are this leader's: triggers may come now.
            triggers.adopted();
        }).run());
    }
}
