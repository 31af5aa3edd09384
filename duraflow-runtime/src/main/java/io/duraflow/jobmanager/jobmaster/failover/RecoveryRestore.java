package io.duraflow.jobmanager.jobmaster.failover;

import io.duraflow.jobmanager.jobmaster.execution.Execution;
import io.duraflow.jobmanager.jobmaster.execution.ExecutionGraph;
import io.duraflow.jobmanager.jobmaster.execution.JobEventLog;
import io.duraflow.jobmanager.jobmaster.coordination.CoordinatorHolder;
import io.duraflow.jobmanager.jobmaster.coordination.OperatorCoordinator;
import io.duraflow.jobmanager.jobmaster.coordination.SourceCoordinator;

import io.duraflow.jobmanager.recovery.RecoveryPlan;
import io.duraflow.plan.JobVertex;
import io.duraflow.rpc.proto.CollectedResult;
import io.duraflow.rpc.proto.SubpartitionSizes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Batch job recovery: applies a {@link RecoveryPlan} to a new job master's execution graph and
 * coordinators before it starts. Decided parallelism and ranges are kept, restored executions
 * are FINISHED with their partitions where they are, the rest will run with attempt numbers
 * above every earlier one, and the source enumerators continue from their logged state with the
 * splits of re-run subtasks given back.
 */
public final class RecoveryRestore {
    private RecoveryRestore() {}

    /** @return how many executions were restored as finished */
    public static int apply(RecoveryPlan plan, ExecutionGraph executions, CoordinatorHolder coordinators,
            JobEventLog eventLog) throws Exception {
        for (var vertexPlan : plan.vertices().values()) {
            if (executions.executions(vertexPlan.vertex()) == null) {
                executions.initializeVertex(vertexPlan.vertex(), vertexPlan.parallelism());
            }
            executions.ranges(vertexPlan.vertex(), vertexPlan.rangeBounds().clone());
        }
        int restoredCount = 0;
        for (var restored : plan.restored().values()) {
            Execution execution = executions.executions(restored.key().vertex())[restored.key().subtask()];
            List<SubpartitionSizes> outputs = new ArrayList<>();
            for (var partition : restored.partitions()) {
                outputs.add(SubpartitionSizes.newBuilder().setEdgeId(partition.getEdgeId())
                        .setPartitionId(partition.getPartitionId()).addAllBytes(partition.getSubpartitionBytesList())
                        .setRecords(partition.getRecords()).build());
            }
            List<CollectedResult> collected = new ArrayList<>();
            for (var c : restored.collected()) {
                collected.add(CollectedResult.newBuilder().setName(c.getName()).setSubtask(c.getSubtask())
                        .setRecords(c.getRecords()).setData(c.getData()).build());
            }
            executions.restoreFinished(execution, restored.attempt(), restored.tmId(), restored.tmAddress(), outputs,
                    collected, restored.recordsIn(), restored.recordsOut());
            restoredCount++;
        }
        List<Execution> rerun = new ArrayList<>();
        for (var entry : plan.nextAttempts().entrySet()) {
            Execution[] subtasks = executions.executions(entry.getKey().vertex());
            if (subtasks != null) {
                Execution execution = subtasks[entry.getKey().subtask()];
                execution.restoreAttempt(entry.getValue());
                rerun.add(execution);
            }
        }
        restoreCoordinators(plan, executions, coordinators);
        if (!rerun.isEmpty()) {
            // Fences off late events of the old leader: older attempts of these never count again.
            eventLog.executionsReset(rerun, "run again after a JobManager failover");
        }
        return restoredCount;
    }

    private static void restoreCoordinators(RecoveryPlan plan, ExecutionGraph executions,
            CoordinatorHolder coordinators) throws Exception {
        for (var entry : plan.enumeratorStates().entrySet()) {
            OperatorCoordinator coordinator = coordinators.get(entry.getKey());
            if (coordinator != null) {
                coordinator.resetToSnapshot(-1, entry.getValue());
            }
        }
        for (JobVertex vertex : executions.jobGraph().vertices()) {
            // Without a snapshot the enumerator is a new one, which would hand out every split again.
            SourceCoordinator source = coordinators.source(vertex.head().id());
            if (source != null && !source.supportsBatchSnapshot() && allRestored(plan, vertex)) {
                source.restoreDrained();
            }
        }
        for (var entry : plan.restoredSplits().entrySet()) {
            SourceCoordinator source = coordinators.source(entry.getKey());
            if (source != null) {
                for (Map.Entry<Integer, List<byte[]>> perSubtask : entry.getValue().entrySet()) {
                    source.markAssigned(perSubtask.getKey(), perSubtask.getValue());
                }
            }
        }
        for (var entry : plan.splitsToReturn().entrySet()) {
            SourceCoordinator source = coordinators.source(entry.getKey());
            if (source != null) {
                for (Map.Entry<Integer, List<byte[]>> perSubtask : entry.getValue().entrySet()) {
                    source.returnSplits(perSubtask.getKey(), perSubtask.getValue());
                }
            }
        }
    }

    private static boolean allRestored(RecoveryPlan plan, JobVertex vertex) {
        for (int subtask = 0; subtask < vertex.parallelism(); subtask++) {
            if (!plan.isRestored(vertex.id(), subtask)) {
                return false;
            }
        }
        return vertex.parallelism() > 0;
    }
}
