package io.duraflow.taskmanager;

import io.duraflow.rpc.proto.HeldTask;
import io.duraflow.rpc.proto.HeldTaskInput;
import io.duraflow.rpc.proto.InputGate;
import io.duraflow.rpc.proto.PartitionLocation;
import io.duraflow.rpc.proto.TaskDeployment;

/**
 * What a TaskManager reports of a task it kept across a leader change ({@code
 * RegisterTaskManagerRequest.held_tasks}): the facts its deployment fixes. The caller adds what the
 * task did since: its state, records, a reader's splits, its checkpoints. The new leader decides
 * over these with {@code AdoptionPlanner}. Pure.
 */
final class HeldTasks {
    private HeldTasks() {}

    /**
     * The attempt, the session that deployed it, its vertex's parallelism, every partition range
     * it reads (one entry per producer of each input gate), the partitions it writes, and for a
     * streaming task its run, the checkpoint it restored (0: none) and the slot it shares.
     */
    static HeldTask.Builder fromDeployment(TaskDeployment deployment) {
        HeldTask.Builder held = HeldTask.newBuilder().setAttempt(deployment.getAttempt())
                .setDeployedBySession(deployment.getJmSessionId()).setParallelism(deployment.getParallelism())
                .setRunId(deployment.getRunId()).setSlot(deployment.getSlot())
                .setRestoredCheckpointId(deployment.hasRestore() ? deployment.getRestore().getCheckpointId() : 0)
                .addAllOutputs(deployment.getOutputsList());
        for (InputGate gate : deployment.getInputsList()) {
            for (PartitionLocation producer : gate.getProducersList()) {
                held.addInputs(HeldTaskInput.newBuilder().setEdgeId(gate.getEdgeId())
                        .setPartitionId(producer.getPartitionId()).setProducerTmId(producer.getTmId())
                        .setSubpartitionFrom(gate.getSubpartitionFrom()).setSubpartitionTo(gate.getSubpartitionTo()));
            }
        }
        return held;
    }
}
