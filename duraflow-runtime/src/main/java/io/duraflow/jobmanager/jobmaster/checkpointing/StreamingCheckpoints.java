package io.duraflow.jobmanager.jobmaster.checkpointing;

import io.duraflow.jobmanager.jobmaster.execution.Execution;
import io.duraflow.jobmanager.jobmaster.execution.ExecutionGraph;
import io.duraflow.jobmanager.jobmaster.execution.ExecutionState;
import io.duraflow.jobmanager.jobmaster.coordination.CoordinatorHolder;
import io.duraflow.jobmanager.resourcemanager.TaskManagerGateways;

import io.duraflow.checkpoint.CheckpointFailure;
import io.duraflow.checkpoint.CheckpointMessages;
import io.duraflow.checkpoint.CheckpointPlan;
import io.duraflow.checkpoint.CheckpointTask;
import io.duraflow.checkpoint.CheckpointTasks;
import io.duraflow.checkpoint.CheckpointTrigger;
import io.duraflow.checkpoint.OperatorCoordinatorCheckpoints;
import io.duraflow.plan.JobGraph;
import io.duraflow.plan.JobVertex;
import io.duraflow.api.dag.Operation;
import io.duraflow.api.dag.PlanNode;
import io.duraflow.rpc.proto.OperatorEvent;
import io.duraflow.rpc.proto.SequenceSkipped;
import io.duraflow.rpc.proto.CheckpointNotification;
import io.duraflow.rpc.proto.CheckpointNotifications;
import io.duraflow.rpc.proto.TriggerCheckpointRequests;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The checkpoint coordinator's view of a streaming job: which tasks take part (over the
 * {@link ExecutionGraph}), how they are told (over the {@link TaskManagerGateways}), and the source
 * coordinators' snapshots (over the {@link CoordinatorHolder}). Main thread only.
 *
 * <p>A checkpoint is planned only while the job runs normally and every execution's current
 * attempt is RUNNING or FINISHED (a bounded job's tasks finish one after another once a
 * checkpoint after the end of their input completed). Every running task acknowledges; the
 * trigger goes to the running tasks no barrier can reach: the sources, and tasks whose producers
 * all finished. A finished task takes no part: everything it read was processed and committed. A message
 * for an attempt that is no longer current is not sent: the coordinator may still name an
 * attempt that was replaced since it planned the checkpoint.
 */
public final class StreamingCheckpoints implements CheckpointTasks, OperatorCoordinatorCheckpoints {
    private static final Logger LOG = LoggerFactory.getLogger(StreamingCheckpoints.class);

    private final String sessionId;
    private final ExecutionGraph executions;
    private final JobGraph graph;
    private final TaskManagerGateways gateways;
    private final CoordinatorHolder coordinators;
    /** Whether the job runs normally (not restarting, not ending); no checkpoint is planned otherwise. */
    private final BooleanSupplier runsNormally;
    private final Map<String, Integer> operatorParallelism = new HashMap<>();
    /**
     * Per checkpoint whose enumerators snapshotted, the operator-event sequence number reserved for
     * each running source task's trigger, until the trigger is sent (or, for a checkpoint aborted
     * before, a {@code SequenceSkipped} takes its place). Events sent after the snapshot get later
     * numbers, so the task applies them after its own snapshot: a split assigned in between is in
     * the readers' part of the checkpoint or in the enumerator's, never in both or neither.
     */
    private final Map<Long, Map<CheckpointTask, Long>> triggerSequences = new HashMap<>();

    public StreamingCheckpoints(String sessionId, ExecutionGraph executions, TaskManagerGateways gateways,
            CoordinatorHolder coordinators, BooleanSupplier runsNormally) {
        this.sessionId = sessionId;
        this.executions = executions;
        this.graph = executions.jobGraph();
        this.gateways = gateways;
        this.coordinators = coordinators;
        this.runsNormally = runsNormally;
        for (JobVertex vertex : graph.vertices()) {
            for (PlanNode node : vertex.nodes()) {
                operatorParallelism.put(graph.uid(node), vertex.parallelism());
            }
        }
    }

    public static CheckpointTask task(Execution execution) {
        return new CheckpointTask(execution.vertex(), execution.subtask(), execution.attempt());
    }

    @Override
    public Optional<CheckpointPlan> planCheckpoint() {
        if (!runsNormally.getAsBoolean()) {
            return Optional.empty();
        }
        List<CheckpointTask> toTrigger = new ArrayList<>();
        Set<CheckpointTask> running = new HashSet<>();
        for (Execution execution : executions.all()) {
            if (execution.state() == ExecutionState.FINISHED) {
                continue; // its input ended and a checkpoint after that end completed: it has nothing left to save
            }
            if (execution.state() != ExecutionState.RUNNING) {
                return Optional.empty();
            }
            running.add(task(execution));
            if (producersFinished(graph, executions, execution.vertex())) {
                toTrigger.add(task(execution));
            }
        }
        if (running.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new CheckpointPlan(toTrigger, running, operatorParallelism));
    }

    /**
     * Whether no barrier can reach this vertex's tasks through their inputs, so the trigger must go
     * to them: a source, or a task whose every producer finished (its input ends, or ended).
     */
    static boolean producersFinished(JobGraph graph, ExecutionGraph executions, int vertexId) {
        for (int edgeId : graph.vertex(vertexId).inputs()) {
            for (Execution producer : executions.executions(graph.edge(edgeId).producer())) {
                if (producer.state() != ExecutionState.FINISHED) {
                    return false;
                }
            }
        }
        return true;
    }

    /** The execution whose current attempt is {@code task} and holds a slot, or null. */
    private Execution current(CheckpointTask task) {
        Execution[] subtasks = executions.executions(task.vertex());
        if (subtasks == null || task.subtask() >= subtasks.length) {
            return null;
        }
        Execution execution = subtasks[task.subtask()];
        return execution.attempt() == task.attempt() && execution.state().isActive() ? execution : null;
    }

    /** One call per TaskManager, for the current attempts among {@code tasks}. */
    @Override
    public void triggerCheckpoint(Collection<CheckpointTask> tasks, CheckpointTrigger trigger) {
        Map<CheckpointTask, Long> reserved = triggerSequences.get(trigger.checkpointId());
        Map<String, TriggerCheckpointRequests.Builder> perTaskManager = new LinkedHashMap<>();
        for (CheckpointTask task : tasks) {
            Execution execution = current(task);
            if (execution == null) {
                LOG.info("Job {}: not triggering checkpoint {} on {}: no longer running", executions.jobId(),
                        trigger.checkpointId(), task);
                continue;
            }
            Long sequence = reserved == null ? null : reserved.remove(task);
            perTaskManager.computeIfAbsent(execution.tmId(),
                    tm -> TriggerCheckpointRequests.newBuilder().setJmSessionId(sessionId))
                    .addTriggers(CheckpointMessages.toProto(executions.jobId(), task, trigger).toBuilder()
                            .setEventSequence(sequence == null ? 0 : sequence));
        }
        perTaskManager.forEach((tmId, triggers) -> gateways.triggerCheckpoint(tmId, triggers.build()));
    }

    @Override
    public void notifyCheckpointComplete(Collection<CheckpointTask> tasks, long checkpointId, long lowestRetainedId) {
        notify(tasks, CheckpointNotification.newBuilder().setCheckpointId(checkpointId).setCompleted(true)
                .setLowestRetainedCheckpointId(lowestRetainedId));
    }

    @Override
    public void notifyCheckpointAborted(Collection<CheckpointTask> tasks, long checkpointId, CheckpointFailure failure) {
        notify(tasks, CheckpointNotification.newBuilder().setCheckpointId(checkpointId).setCompleted(false)
                .setFailure(CheckpointMessages.toProto(failure)));
    }

    /**
     * One call per TaskManager, for the current attempts among {@code tasks}; the later vertices'
     * tasks first (within a call, and the calls in that order), so the sinks, which commit on a
     * completion, hear it before the sources.
     */
    private void notify(Collection<CheckpointTask> tasks, CheckpointNotification.Builder outcome) {
        List<CheckpointTask> sinksFirst = new ArrayList<>(tasks);
        sinksFirst.sort(Comparator.comparingInt(CheckpointTask::vertex).reversed()
                .thenComparingInt(CheckpointTask::subtask));
        Map<String, CheckpointNotifications.Builder> perTaskManager = new LinkedHashMap<>();
        for (CheckpointTask task : sinksFirst) {
            Execution execution = current(task);
            if (execution != null) {
                perTaskManager.computeIfAbsent(execution.tmId(),
                        tm -> CheckpointNotifications.newBuilder().setJmSessionId(sessionId))
                        .addNotifications(outcome.setAttempt(CheckpointMessages.toProto(executions.jobId(), task)));
            }
        }
        perTaskManager.forEach((tmId, notifications) -> gateways.notifyCheckpoint(tmId, notifications.build()));
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        triggerSequences.remove(checkpointId);
        coordinators.notifyCheckpointComplete(checkpointId);
    }

    /** A sequence number reserved for a trigger that was not sent is filled, so the events after it go on. */
    @Override
    public void notifyCheckpointAborted(long checkpointId) {
        Map<CheckpointTask, Long> unsent = triggerSequences.remove(checkpointId);
        if (unsent == null) {
            return;
        }
        OperatorEvent skipped = OperatorEvent.newBuilder()
                .setSequenceSkipped(SequenceSkipped.newBuilder().setCheckpointId(checkpointId)).build();
        unsent.forEach((task, sequence) -> {
            Execution execution = current(task);
            if (execution != null) {
                gateways.sendOperatorEvent(execution.tmId(), execution.attemptId(),
                        graph.vertex(task.vertex()).head().id(), sequence, skipped);
            }
        });
    }

    @Override
    public CompletableFuture<Map<String, byte[]>> snapshotCoordinators(long checkpointId) {
        // The enumerators live on the main thread, where this is called: snapshot them here, and
        // reserve the triggers' places among the events in the same step (see triggerSequences).
        Map<String, byte[]> states;
        try {
            states = coordinators.snapshotForCheckpoint(checkpointId);
        } catch (Exception e) {
            return CompletableFuture.failedFuture(e);
        }
        Map<CheckpointTask, Long> reserved = new HashMap<>();
        for (JobVertex vertex : graph.vertices()) {
            if (vertex.head().operation() instanceof Operation.SourceOp) {
                for (Execution execution : executions.executions(vertex.id())) {
                    if (execution.state() == ExecutionState.RUNNING) {
                        reserved.put(task(execution), execution.nextOperatorEventSequence());
                    }
                }
            }
        }
        triggerSequences.put(checkpointId, reserved);
        return CompletableFuture.completedFuture(states);
    }
}
