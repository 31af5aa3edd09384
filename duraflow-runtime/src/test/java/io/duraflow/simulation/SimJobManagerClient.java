package io.duraflow.simulation;

import io.duraflow.rpc.proto.Ack;
import io.duraflow.rpc.proto.AcknowledgeCheckpointRequest;
import io.duraflow.rpc.proto.DeclineCheckpointRequest;
import io.duraflow.rpc.proto.JobManagerHeartbeat;
import io.duraflow.rpc.proto.OperatorEventFromTask;
import io.duraflow.rpc.proto.RegisterTaskManagerRequest;
import io.duraflow.rpc.proto.RegisterTaskManagerResponse;
import io.duraflow.rpc.proto.TaskInputEnded;
import io.duraflow.rpc.proto.TaskManagerHeartbeat;
import io.duraflow.rpc.proto.TaskStateUpdate;
import io.duraflow.taskmanager.JobManagerClient;
import java.util.concurrent.CompletableFuture;

/**
 * A TaskManager's {@link JobManagerClient} over the simulated network, as {@code
 * GrpcJobManagerClient} is over gRPC: one channel to an address (whichever JobManager process
 * runs there when a call is made), every call with a deadline of the heartbeat timeout, and
 * closing it fails the calls in flight at once.
 */
final class SimJobManagerClient implements JobManagerClient {
    private final SimCluster cluster;
    private final SimProcess taskManager;
    private final String address;
    private final long timeoutMs;
    private boolean closed;

    SimJobManagerClient(SimCluster cluster, SimProcess taskManager, String address, long timeoutMs) {
        this.cluster = cluster;
        this.taskManager = taskManager;
        this.address = address;
        this.timeoutMs = timeoutMs;
    }

    private <Q, A> CompletableFuture<A> call(Q request, HandlerCall<Q, A> handler) {
        if (closed) {
            return CompletableFuture.failedFuture(SimNetwork.unavailable("Channel shutdownNow invoked"));
        }
        SimJobManager target = cluster.jobManagerAt(address);
        return cluster.network().call(taskManager, target == null ? null : target.process(),
                target == null ? null : target.main, timeoutMs, this, answer -> handler.accept(target, request, answer));
    }

    private interface HandlerCall<Q, A> {
        void accept(SimJobManager target, Q request, SimNetwork.Answer<A> answer);
    }

    @Override
    public CompletableFuture<RegisterTaskManagerResponse> register(RegisterTaskManagerRequest request) {
        return call(request, SimJobManager::registerTaskManager);
    }

    @Override
    public CompletableFuture<JobManagerHeartbeat> heartbeat(TaskManagerHeartbeat heartbeat) {
        return call(heartbeat, SimJobManager::heartbeat);
    }

    @Override
    public CompletableFuture<Ack> updateTaskState(TaskStateUpdate update) {
        return call(update, SimJobManager::updateTaskState);
    }

    @Override
    public CompletableFuture<Ack> sendOperatorEvent(OperatorEventFromTask event) {
        return call(event, SimJobManager::sendOperatorEvent);
    }

    @Override
    public CompletableFuture<Ack> acknowledgeCheckpoint(AcknowledgeCheckpointRequest request) {
        return call(request, SimJobManager::acknowledgeCheckpoint);
    }

    @Override
    public CompletableFuture<Ack> declineCheckpoint(DeclineCheckpointRequest request) {
        return call(request, SimJobManager::declineCheckpoint);
    }

    @Override
    public CompletableFuture<Ack> reportInputEnded(TaskInputEnded report) {
        return call(report, SimJobManager::reportInputEnded);
    }

    @Override
    public void close() {
        closed = true;
        cluster.network().cutOff(call -> call.tag == this, SimNetwork.unavailable("Channel shutdownNow invoked"));
    }

}
