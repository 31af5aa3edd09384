package io.duraflow.jobmanager;

import io.duraflow.rpc.Rpc;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.CancelTaskRequest;
import io.duraflow.rpc.proto.CheckpointNotification;
import io.duraflow.rpc.proto.OperatorEvent;
import io.duraflow.rpc.proto.OperatorEventToTask;
import io.duraflow.rpc.proto.ReleasePartitionsRequest;
import io.duraflow.rpc.proto.TaskDeployment;
import io.duraflow.rpc.proto.TaskManagerGatewayGrpc;
import io.duraflow.rpc.proto.TriggerCheckpointRequest;
import io.grpc.ManagedChannel;
import io.grpc.stub.StreamObserver;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One gRPC channel per registered TaskManager; every call has a deadline and carries the
 * leadership session, so that a TaskManager can tell a deposed leader's calls apart.
 */
public final class GrpcTaskManagerTransport implements TaskManagerTransport {
    private static final Logger LOG = LoggerFactory.getLogger(GrpcTaskManagerTransport.class);

    private record Connection(ManagedChannel channel, TaskManagerGatewayGrpc.TaskManagerGatewayStub stub) {}

    private final String sessionId;
    private final long rpcTimeoutMs;
    /** By TaskManager id; main thread only. */
    private final Map<String, Connection> connections = new HashMap<>();

    public GrpcTaskManagerTransport(String sessionId, long rpcTimeoutMs) {
        this.sessionId = sessionId;
        this.rpcTimeoutMs = rpcTimeoutMs;
    }

    @Override
    public void connect(String tmId, String address) {
        disconnect(tmId);
        ManagedChannel channel = Rpc.channel(address);
        connections.put(tmId, new Connection(channel, TaskManagerGatewayGrpc.newStub(channel)));
    }

    @Override
    public void disconnect(String tmId) {
        Connection connection = connections.remove(tmId);
        if (connection != null) {
            Rpc.shutdown(connection.channel());
        }
    }

    @Override
    public void deploy(String tmId, TaskDeployment deployment, Consumer<Throwable> onFailure) {
        Connection connection = connections.get(tmId);
        if (connection == null) {
            onFailure.accept(new IllegalStateException("no connection to TaskManager " + tmId));
            return;
        }
        ManagedChannel channel = connection.channel();
        stub(connection).deployTask(deployment, callback(error -> {
            // A channel shut down by disconnect or close fails its calls with UNAVAILABLE
            // ("Channel shutdownNow invoked"), like a TaskManager that is gone: tell them apart.
            onFailure.accept(channel.isShutdown() ? new ClosedByUs(tmId, error) : error);
        }));
    }

    @Override
    public void cancel(String tmId, AttemptId attempt) {
        Connection connection = connections.get(tmId);
        if (connection != null) {
            stub(connection).cancelTask(CancelTaskRequest.newBuilder().setJmSessionId(sessionId).setAttempt(attempt)
                    .build(), callback(logOnly("cancel " + Rpc.describe(attempt))));
        }
    }

    @Override
    public void sendOperatorEvent(String tmId, AttemptId attempt, int nodeId, long sequence, OperatorEvent event) {
        Connection connection = connections.get(tmId);
        if (connection != null) {
            stub(connection).sendOperatorEvent(OperatorEventToTask.newBuilder().setJmSessionId(sessionId)
                    .setAttempt(attempt).setNodeId(nodeId).setSequence(sequence).setEvent(event).build(),
                    callback(logOnly("operator event to " + Rpc.describe(attempt))));
        }
    }

    @Override
    public void triggerCheckpoint(String tmId, TriggerCheckpointRequest request) {
        Connection connection = connections.get(tmId);
        if (connection != null) {
            stub(connection).triggerCheckpoint(request, callback(logOnly("trigger checkpoint "
                    + request.getCheckpointId() + " of " + Rpc.describe(request.getAttempt()))));
        }
    }

    @Override
    public void notifyCheckpoint(String tmId, CheckpointNotification notification) {
        Connection connection = connections.get(tmId);
        if (connection != null) {
            stub(connection).notifyCheckpoint(notification, callback(logOnly("notify checkpoint "
                    + notification.getCheckpointId() + " to " + Rpc.describe(notification.getAttempt()))));
        }
    }

    @Override
    public void releasePartitions(String tmId, String jobId, List<String> partitionIds) {
        release(tmId, jobId, partitionIds, false);
    }

    @Override
    public void releaseKeptPartitions(String tmId, String jobId, List<String> partitionIds) {
        release(tmId, jobId, partitionIds, true);
    }

    private void release(String tmId, String jobId, List<String> partitionIds, boolean onlyKept) {
        Connection connection = connections.get(tmId);
        if (connection != null) {
            stub(connection).releasePartitions(ReleasePartitionsRequest.newBuilder().setJmSessionId(sessionId)
                    .setJobId(jobId).addAllPartitionIds(partitionIds).setOnlyKept(onlyKept).build(),
                    callback(logOnly("release partitions")));
        }
    }

    @Override
    public void close() {
        for (Connection connection : connections.values()) {
            Rpc.shutdown(connection.channel());
        }
        connections.clear();
    }

    private TaskManagerGatewayGrpc.TaskManagerGatewayStub stub(Connection connection) {
        return connection.stub().withDeadlineAfter(rpcTimeoutMs, TimeUnit.MILLISECONDS);
    }

    private static Consumer<Throwable> logOnly(String what) {
        return error -> LOG.warn("RPC '{}' failed: {}", what, Rpc.message(error));
    }

    private static <T> StreamObserver<T> callback(Consumer<Throwable> onError) {
        return new StreamObserver<>() {
            @Override
            public void onNext(T value) {}

            @Override
            public void onError(Throwable t) {
                onError.accept(t);
            }

            @Override
            public void onCompleted() {}
        };
    }
}
