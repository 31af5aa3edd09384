package io.duraflow.taskmanager.task;

import io.duraflow.exchange.PartitionNotFoundException;

import io.duraflow.exchange.blocking.PartitionFetcher;
import io.duraflow.rpc.proto.OperatorEventFromTask;
import io.duraflow.rpc.proto.PartitionLocation;
import io.duraflow.rpc.proto.TaskStateUpdate;
import io.duraflow.exchange.ResultPartitionWriter;
import java.util.function.Consumer;

/** What a task needs from its TaskManager; lets tasks run in tests without processes. */
public interface TaskEnvironment extends PartitionFetcher {
    String taskManagerId();

    OperatorChain.Settings settings();

    /** Creates the file writer of a partition this task produces; visible once {@link #publish}ed. */
    ResultPartitionWriter createPartition(String jobId, String partitionId, int subpartitions) throws Exception;

    void publish(String jobId, String partitionId);

    void sendOperatorEvent(OperatorEventFromTask event);

    /**
     * The task is done with its slot. Called before its final state is reported, because the
     * JobManager may deploy the next task into the slot as soon as it hears of the end.
     */
    void releaseSlot(io.duraflow.rpc.proto.AttemptId attempt);

    void reportState(TaskStateUpdate update);

    /**
     * What streaming tasks need besides this; a TaskManager that runs them overrides it (batch
     * tests' environments do not).
     */
    default StreamEnvironment streaming() {
        throw new IllegalStateException("this TaskManager environment cannot run streaming tasks");
    }
}
