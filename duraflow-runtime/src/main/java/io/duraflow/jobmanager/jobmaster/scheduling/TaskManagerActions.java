package io.duraflow.jobmanager.jobmaster.scheduling;

import io.duraflow.jobmanager.jobmaster.execution.Execution;
import io.duraflow.jobmanager.jobmaster.execution.ExecutionState;
import io.duraflow.jobmanager.resourcemanager.SlotPool;
import io.duraflow.jobmanager.resourcemanager.TaskManagerGateways;

import io.duraflow.config.RuntimeMode;
import io.duraflow.plan.JobGraph;
import java.util.List;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a job master asks of slots and TaskManagers for its executions: deploy into a slot,
 * cancel, free, release partitions. Keeps each execution's state in step with its slot (an
 * execution holds its place in a slot exactly while {@link ExecutionState#isActive()}).
 *
 * <p>Slot sharing: a streaming job's executions of one slot sharing group and subtask index share
 * a slot ({@link #slotOf}), so a job needs as many slots as the highest parallelism of each group,
 * summed over its groups, and the subtasks that exchange most data without a shuffle run in one
 * process. A batch job's executions run stage by stage and take a slot each while they run.
 * Main thread only.
 */
public final class TaskManagerActions {
    private static final Logger LOG = LoggerFactory.getLogger(TaskManagerActions.class);

    private final String jobId;
    private final JobGraph graph;
    private final SlotPool slots;
    private final TaskManagerGateways gateways;
    private final TaskDeployments deployments;

    public TaskManagerActions(String jobId, JobGraph graph, SlotPool slots, TaskManagerGateways gateways,
            TaskDeployments deployments) {
        this.jobId = jobId;
        this.graph = graph;
        this.slots = slots;
        this.gateways = gateways;
        this.deployments = deployments;
    }

    /**
     * Deploys the execution's current attempt into a free slot.
     *
     * @param onFailure told (on the main thread) when the TaskManager refused or was unreachable
     * @return false if no slot is free (nothing changed)
     */
    boolean deployIntoFreeSlot(Execution execution, BiConsumer<String, Throwable> onFailure) {
        String name = slotOf(execution);
        SlotPool.SlotOffer slot = slots.allocate(name);
        if (slot == null) {
            return false;
        }
        execution.assign(slot.tmId(), slot.address());
        execution.transition(ExecutionState.DEPLOYING, "slot on " + slot.tmId());
        gateways.deploy(slot.tmId(), deployments.of(execution, name), error -> onFailure.accept(slot.tmId(), error));
        return true;
    }

    /**
     * The slot the execution runs in: {@code <job>/<slot sharing group>/<subtask>} in a streaming
     * job, its own ({@link SlotPool#UNSHARED}) in a batch job. The same on every leader, so a new
     * one frees the slots of the tasks it adopted as the TaskManagers reported them.
     */
    public String slotOf(Execution execution) {
        if (graph.mode() != RuntimeMode.STREAMING) {
            return SlotPool.UNSHARED;
        }
        return jobId + "/" + graph.vertex(execution.vertex()).slotSharingGroup() + "/" + execution.subtask();
    }

    /** Slots free now in the cluster. */
    int freeSlots() {
        return slots.freeSlots();
    }

    /** Free slots the executions need to be deployed: one per slot that none of them, nor anyone else, is in yet. */
    int slotsToTake(List<Execution> executions) {
        java.util.Set<String> named = new java.util.HashSet<>();
        int unshared = 0;
        for (Execution execution : executions) {
            String slot = slotOf(execution);
            if (slot.isEmpty()) {
                unshared++;
            } else if (!slots.isAllocated(slot)) {
                named.add(slot);
            }
        }
        return unshared + named.size();
    }

    /** The active execution stopped on its TaskManager (finished, failed, cancelled): its place in its slot is free. */
    public void stopped(Execution execution, ExecutionState target, String reason) {
        execution.transition(target, reason);
        slots.free(execution.tmId(), slotOf(execution));
    }

    /** Asks the TaskManager to cancel the active execution; it confirms with a CANCELED update. */
    public void cancel(Execution execution, String reason) {
        execution.transition(ExecutionState.CANCELING, reason);
        gateways.cancel(execution.tmId(), execution.attemptId());
    }

    /**
     * Marks every active execution stopped here and frees its slot, without a word to its
     * TaskManager, which keeps the task for the next leader (this one no longer leads).
     */
    public void forgetAll(List<Execution> active, String reason) {
        for (Execution execution : active) {
            slots.free(execution.tmId(), slotOf(execution));
            execution.transition(ExecutionState.CANCELED, reason);
        }
    }

    /**
     * Cancels every active execution and frees its slot at once, without waiting for the
     * TaskManager (the job ends or leaves this leader). A failing cancel is only logged: the
     * TaskManager drops the task when the job's partitions are released or its JobManager changes.
     */
    public void stopAll(List<Execution> active, String reason) {
        for (Execution execution : active) {
            slots.free(execution.tmId(), slotOf(execution));
            // Marked stopped now, so a late confirmation cannot free the slot a second time.
            execution.transition(ExecutionState.CANCELED, reason);
            try {
                gateways.cancel(execution.tmId(), execution.attemptId());
            } catch (RuntimeException e) {
                LOG.warn("Job {}: cannot cancel {} on {}: {}", jobId, execution, execution.tmId(), e.toString());
            }
        }
    }

    /** A finished execution runs again: its partitions on its TaskManager go. */
    public void releaseOutputs(Execution execution) {
        if (execution.tmId() != null && execution.state() == ExecutionState.FINISHED) {
            for (int edgeId : graph.vertex(execution.vertex()).outputs()) {
                gateways.releasePartitions(execution.tmId(), jobId, List.of(execution.partitionId(edgeId)));
            }
        }
    }

    /** The job ended: every partition of it on every TaskManager goes; failures are left to cleanup. */
    public void releaseAll() {
        for (String tmId : slots.taskManagers()) {
            try {
                gateways.releasePartitions(tmId, jobId, List.of());
            } catch (RuntimeException e) {
                LOG.warn("Job {}: cannot release its partitions on {}: {}", jobId, tmId, e.toString());
            }
        }
    }
}
