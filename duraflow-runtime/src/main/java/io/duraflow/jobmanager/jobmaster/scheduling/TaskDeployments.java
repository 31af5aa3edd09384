package io.duraflow.jobmanager.jobmaster.scheduling;

import io.duraflow.jobmanager.jobmaster.execution.Execution;
import io.duraflow.jobmanager.jobmaster.execution.ExecutionGraph;
import io.duraflow.jobmanager.jobmaster.execution.JobSettings;
import io.duraflow.jobmanager.jobmaster.checkpointing.CheckpointRestore;

import io.duraflow.config.RuntimeMode;
import io.duraflow.plan.JobGraph;
import io.duraflow.plan.JobVertex;
import io.duraflow.rpc.proto.InputGate;
import io.duraflow.rpc.proto.OutputSpec;
import io.duraflow.rpc.proto.PartitionLocation;
import io.duraflow.rpc.proto.TaskDeployment;
import java.util.Map;
import java.util.function.Supplier;

/**
 * What a TaskManager needs to run one execution: the job to build the plan from, the key-group
 * range it reads of each input and where the producers' partitions are, and the partitions it
 * writes. No I/O.
 *
 * <p>Streaming: an output has one subpartition per consumer subtask (subtask i reads subpartition
 * i, see {@link PipelinedScheduling}), and the task restores its part of the checkpoint the job
 * restores from, if any.
 */
public final class TaskDeployments {
    private final String sessionId;
    private final String jobClass;
    private final Map<String, String> params;
    private final Map<String, String> config;
    private final JobSettings settings;
    private final ExecutionGraph executions;
    private final JobGraph graph;
    /** The checkpoint the next deployments of a streaming job restore, or null (empty state). */
    private final Supplier<CheckpointRestore> restore;
    /** The run of a streaming job the next deployments belong to (see {@code TaskDeployment.run_id}). */
    private final Supplier<String> runId;

    public TaskDeployments(String sessionId, String jobClass, Map<String, String> params, Map<String, String> config,
            JobSettings settings, ExecutionGraph executions) {
        this(sessionId, jobClass, params, config, settings, executions, () -> null, () -> "");
    }

    public TaskDeployments(String sessionId, String jobClass, Map<String, String> params, Map<String, String> config,
            JobSettings settings, ExecutionGraph executions, Supplier<CheckpointRestore> restore,
            Supplier<String> runId) {
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

    /** The deployment of {@code execution}'s current attempt; every producer of its inputs has finished. */
    TaskDeployment of(Execution execution) {
        JobVertex vertex = graph.vertex(execution.vertex());
        int[] bounds = executions.ranges(vertex.id());
        TaskDeployment.Builder deployment = TaskDeployment.newBuilder().setJmSessionId(sessionId)
                .setAttempt(execution.attemptId()).setJobClass(jobClass).putAllParams(params).putAllConfig(config)
                .setDefaultParallelism(settings.defaultParallelism()).setFingerprint(graph.fingerprint())
                .setParallelism(executions.executions(vertex.id()).length);
        for (int edgeId : vertex.inputs()) {
            InputGate.Builder gate = InputGate.newBuilder().setEdgeId(edgeId)
                    .setSubpartitionFrom(bounds[execution.subtask()]).setSubpartitionTo(bounds[execution.subtask() + 1]);
            for (Execution producer : executions.executions(graph.edge(edgeId).producer())) {
                gate.addProducers(PartitionLocation.newBuilder().setPartitionId(producer.partitionId(edgeId))
                        .setTmId(producer.tmId()).setTmAddress(producer.tmAddress()));
            }
            deployment.addInputs(gate);
        }
        boolean streaming = graph.mode() == RuntimeMode.STREAMING;
        for (int edgeId : vertex.outputs()) {
            int subpartitions = streaming ? executions.executions(graph.edge(edgeId).consumer()).length
                    : settings.keyGroups();
            deployment.addOutputs(OutputSpec.newBuilder().setEdgeId(edgeId).setPartitionId(execution.partitionId(edgeId))
                    .setSubpartitions(subpartitions));
        }
        if (streaming) {
            deployment.setRunId(runId.get());
        }
        CheckpointRestore checkpoint = streaming ? restore.get() : null;
        if (checkpoint != null) {
            deployment.setRestore(checkpoint.taskRestore(vertex.id(), execution.subtask()));
        }
        return deployment.build();
    }
}
