package io.duraflow.jobmanager.jobmaster.scheduling;

import io.duraflow.jobmanager.jobmaster.execution.Execution;
import io.duraflow.jobmanager.jobmaster.execution.ExecutionGraph;
import io.duraflow.jobmanager.jobmaster.execution.JobSettings;
import io.duraflow.jobmanager.jobmaster.checkpointing.CheckpointRestore;

import io.duraflow.plan.JobGraph;
import io.duraflow.plan.JobVertex;
import io.duraflow.rpc.proto.InputGate;
import io.duraflow.rpc.proto.OutputSpec;
import io.duraflow.rpc.proto.PartitionLocation;
import io.duraflow.rpc.proto.TaskDeployment;
import java.util.Map;
import java.util.function.IntUnaryOperator;
import java.util.function.Supplier;

/**
 * What a TaskManager needs to run one execution: the job to build the plan from, the key-group
 * range it reads of each input and where the producers' partitions are, and the partitions it
 * writes, laid out as the job's {@link SchedulingStrategy#subpartitions scheduling} reads them.
 * No I/O.
 *
 * <p>A streaming job's tasks also carry the run they belong to and restore their part of the
 * checkpoint the job restores from, if any; a batch job has neither.
 */
public final class TaskDeployments {
    private final String sessionId;
    private final String jobClass;
    /** The jar that holds the job class, or null (on the class path). */
    private final io.duraflow.rpc.proto.JobArtifact jar;
    private final Map<String, String> params;
    private final Map<String, String> config;
    private final JobSettings settings;
    private final ExecutionGraph executions;
    private final JobGraph graph;
    /** How many subpartitions a producer writes on an edge. */
    private final IntUnaryOperator subpartitions;
    /** The checkpoint the next deployments of a streaming job restore, or null (empty state). */
    private final Supplier<CheckpointRestore> restore;
    /** The run of a streaming job the next deployments belong to (see {@code TaskDeployment.run_id}), or "". */
    private final Supplier<String> runId;

    /** The deployments of a batch job: one subpartition per key group, no run, no restore. */
    public TaskDeployments(String sessionId, String jobClass, Map<String, String> params, Map<String, String> config,
            JobSettings settings, ExecutionGraph executions) {
        this(sessionId, jobClass, null, params, config, settings, executions, edgeId -> settings.keyGroups(),
                () -> null, () -> "");
    }

    public TaskDeployments(String sessionId, String jobClass, io.duraflow.rpc.proto.JobArtifact jar,
            Map<String, String> params, Map<String, String> config, JobSettings settings, ExecutionGraph executions,
            IntUnaryOperator subpartitions, Supplier<CheckpointRestore> restore, Supplier<String> runId) {
        this.jar = jar;
        this.subpartitions = subpartitions;
        this.restore = restore;
        this.runId = runId;
        this.sessionId = sessionId;
        this.jobClass = jobClass;
        this.params = params;
        this.config = config;
        this.settings = settings;
        this.executions = executions;
        this.graph = executions.jobGraph();
    }

    /**
     * The deployment of {@code execution}'s current attempt into the named slot ({@code ""}: one of
     * its own); every producer of its inputs has finished, or runs (pipelined).
     */
    TaskDeployment of(Execution execution, String slot) {
        JobVertex vertex = graph.vertex(execution.vertex());
        int[] bounds = executions.ranges(vertex.id());
        TaskDeployment.Builder deployment = TaskDeployment.newBuilder().setJmSessionId(sessionId)
                .setAttempt(execution.attemptId()).setJobClass(jobClass).putAllParams(params).putAllConfig(config)
                .setDefaultParallelism(settings.defaultParallelism()).setFingerprint(graph.fingerprint())
                .setParallelism(executions.executions(vertex.id()).length).setSlot(slot);
        for (int edgeId : vertex.inputs()) {
            InputGate.Builder gate = InputGate.newBuilder().setEdgeId(edgeId)
                    .setSubpartitionFrom(bounds[execution.subtask()]).setSubpartitionTo(bounds[execution.subtask() + 1]);
            for (Execution producer : executions.executions(graph.edge(edgeId).producer())) {
                gate.addProducers(PartitionLocation.newBuilder().setPartitionId(producer.partitionId(edgeId))
                        .setTmId(producer.tmId()).setTmAddress(producer.tmAddress()));
            }
            deployment.addInputs(gate);
        }
        for (int edgeId : vertex.outputs()) {
            deployment.addOutputs(OutputSpec.newBuilder().setEdgeId(edgeId).setPartitionId(execution.partitionId(edgeId))
                    .setSubpartitions(subpartitions.applyAsInt(edgeId)));
        }
        deployment.setRunId(runId.get());
        if (jar != null) {
            deployment.setArtifact(jar);
        }
        CheckpointRestore checkpoint = restore.get();
        if (checkpoint != null) {
            deployment.setRestore(checkpoint.taskRestore(vertex.id(), execution.subtask()));
        }
        return deployment.build();
    }
}
