package io.duraflow.jobmanager.resourcemanager;

import io.duraflow.jobmanager.jobmaster.execution.Execution;

import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.CheckpointNotifications;
import io.duraflow.rpc.proto.OperatorEvent;
import io.duraflow.rpc.proto.TaskDeployment;
import io.duraflow.rpc.proto.TriggerCheckpointRequests;
import java.util.List;
import java.util.function.Consumer;

/**
 * How a job master talks to TaskManagers. Callbacks run on the main thread. The real one sends
 * gRPC; tests use a fake that records calls.
 */
public interface TaskManagerGateways {
    /** Deploys; {@code onFailure} gets the error when the TaskManager refused or was unreachable. */
    void deploy(String tmId, TaskDeployment deployment, Consumer<Throwable> onFailure);

    void cancel(String tmId, AttemptId attempt);

    /**
     * Sends an operator event to a task; {@code sequence} numbers the events sent to one attempt
     * from 1, so the task applies them in order (see {@link Execution#nextOperatorEventSequence}).
     */
    void sendOperatorEvent(String tmId, AttemptId attempt, int nodeId, long sequence, OperatorEvent event);

    /** Releases the listed partitions of a job, or all of them when the list is empty. */
    void releasePartitions(String tmId, String jobId, List<String> partitionIds);

    /**
     * Tells source tasks of a TaskManager to take their part of a checkpoint. A failed call is only logged: the
     * checkpoint then times out, or the task's failure restarts the job.
     */
    void triggerCheckpoint(String tmId, TriggerCheckpointRequests triggers);

    /** Tells tasks of a TaskManager that a checkpoint completed or was aborted; a failed call is only logged. */
    void notifyCheckpoint(String tmId, CheckpointNotifications notifications);
}
