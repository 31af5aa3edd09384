package io.duraflow.taskmanager;

import io.duraflow.rpc.proto.AcknowledgeCheckpointRequest;
import io.duraflow.rpc.proto.Ack;
import io.duraflow.rpc.proto.DeclineCheckpointRequest;
import io.duraflow.rpc.proto.JobManagerHeartbeat;
import io.duraflow.rpc.proto.OperatorEventFromTask;
import io.duraflow.rpc.proto.RegisterTaskManagerRequest;
import io.duraflow.rpc.proto.RegisterTaskManagerResponse;
import io.duraflow.rpc.proto.TaskManagerHeartbeat;
import io.duraflow.rpc.proto.TaskInputEnded;
import io.duraflow.rpc.proto.TaskStateUpdate;
import java.util.concurrent.CompletableFuture;

/**
 * The TaskExecutor's calls to one JobManager, all asynchronous so that the mailbox never blocks on
 * the network: the futures complete on other threads, and the executor hops back into its mailbox
 * to act on the answer. gRPC outside tests ({@link GrpcJobManagerClient}); tests use fakes that
 * answer, fail or drop calls on command.
 */
public interface JobManagerClient extends AutoCloseable {
    CompletableFuture<RegisterTaskManagerResponse> register(RegisterTaskManagerRequest request);

    CompletableFuture<JobManagerHeartbeat> heartbeat(TaskManagerHeartbeat heartbeat);

    CompletableFuture<Ack> updateTaskState(TaskStateUpdate update);

    CompletableFuture<Ack> sendOperatorEvent(OperatorEventFromTask event);

    /** A streaming task's part of a checkpoint: its operators' state handles. */
    CompletableFuture<Ack> acknowledgeCheckpoint(AcknowledgeCheckpointRequest request);

    /** A streaming task will not take its part of a checkpoint, and why. */
    CompletableFuture<Ack> declineCheckpoint(DeclineCheckpointRequest request);

    /** A streaming task processed all its input and waits for a checkpoint taken after it. */
    CompletableFuture<Ack> reportInputEnded(TaskInputEnded report);

    /**
     * Writes a job's jar, as the JobManager stored it, to {@code out} (on the call's threads);
     * completes when all of it arrived. Fakes that never run jobs from jars need not answer it.
     */
    default CompletableFuture<Void> fetchArtifact(io.duraflow.rpc.proto.FetchArtifactRequest request,
            java.io.OutputStream out, long timeoutMs) {
        return CompletableFuture.failedFuture(new UnsupportedOperationException("this JobManager client sends no jars"));
    }

    /** Ends every call in flight (they fail) and frees the connection. */
    @Override
    void close();

    /** Connects to the JobManager at {@code address} (host:port). */
    interface Factory {
        JobManagerClient connect(String address);
    }
}
