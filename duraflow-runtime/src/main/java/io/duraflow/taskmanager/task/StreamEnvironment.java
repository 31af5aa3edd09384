package io.duraflow.taskmanager.task;

import io.duraflow.exchange.pipelined.NetworkEnvironment;
import io.duraflow.exchange.pipelined.PipelinedInputGate;
import io.duraflow.exchange.pipelined.PipelinedResultPartition;
import io.duraflow.rpc.proto.AcknowledgeCheckpointRequest;
import io.duraflow.rpc.proto.DeclineCheckpointRequest;
import io.duraflow.rpc.proto.TaskInputEnded;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;

/**
 * What a streaming task needs from its TaskManager besides {@link TaskEnvironment}: the
 * TaskManager's pipelined network, a pool for the asynchronous part of snapshots, a timer thread
 * for processing-time wake-ups, and the checkpoint calls to the JobManager. The calls to the
 * JobManager are fenced by the TaskManager with the session id of the task's deployment, so a
 * task of an earlier leadership never passes for one of the current leader's.
 */
public interface StreamEnvironment {
    /** A partition this task produces, registered TaskManager-wide (local consumers read it directly). */
    PipelinedResultPartition createPipelinedPartition(String partitionId, int subpartitions);

    /** The gate over the producers' subpartitions this task reads; not started yet. */
    PipelinedInputGate createInputGate(String consumer, List<NetworkEnvironment.ChannelLocation> channels);

    /**
     * The TaskManager's directory for state backends that keep files locally (RocksDB): each task
     * attempt works in a directory of its own under it and deletes it when it ends; the TaskManager
     * sweeps what a killed predecessor left here when it starts.
     */
    java.nio.file.Path localStateDirectory();

    /** Where the asynchronous parts of snapshots run (they write state files), off the task threads. */
    Executor snapshotPool();

    /** The TaskManager's checkpoint file-merging managers, one per run of a job (seed 003). */
    io.duraflow.state.filemerging.FileMergingManagers fileMerging();

    /** Schedules processing-time wake-ups; the scheduled action only puts a mail. */
    ScheduledExecutorService timers();

    /** Milliseconds since the epoch: the processing time of timers. */
    long currentTimeMs();

    CompletableFuture<Void> acknowledgeCheckpoint(AcknowledgeCheckpointRequest request);

    CompletableFuture<Void> declineCheckpoint(DeclineCheckpointRequest request);

    CompletableFuture<Void> reportInputEnded(TaskInputEnded report);
}
