package io.duraflow.jobmanager.resourcemanager;

import io.duraflow.rpc.PeerUnreachableException;
import io.duraflow.rpc.Rpc;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.CancelTaskRequest;
import io.duraflow.rpc.proto.CheckpointNotifications;
import io.duraflow.rpc.proto.OperatorEvent;
import io.duraflow.rpc.proto.OperatorEventToTask;
import io.duraflow.rpc.proto.PingRequest;
import io.duraflow.rpc.proto.PingResponse;
import io.duraflow.rpc.proto.ReleasePartitionsRequest;
import io.duraflow.rpc.proto.TaskDeployment;
import io.duraflow.rpc.proto.TaskManagerGatewayGrpc;
import io.duraflow.rpc.proto.TriggerCheckpointRequests;
import io.grpc.ConnectivityState;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One gRPC channel per registered TaskManager; every call has a deadline and carries the
 * leadership session, so that a TaskManager can tell a deposed leader's calls apart. Each channel
 * connects at once and is watched: its connection breaking, or a call failing with UNAVAILABLE,
 * is reported as a suspicion that the TaskManager is gone ({@link #reportSuspicionsTo}).
 */
public final class GrpcTaskManagerTransport implements TaskManagerTransport {
    private static final Logger LOG = LoggerFactory.getLogger(GrpcTaskManagerTransport.class);

    private record Connection(String address, ManagedChannel channel, TaskManagerGatewayGrpc.TaskManagerGatewayStub stub) {}

    private final String sessionId;
    private final long rpcTimeoutMs;
    /** By TaskManager id; main thread only. */
    private final Map<String, Connection> connections = new HashMap<>();

    public GrpcTaskManagerTransport(String sessionId, long rpcTimeoutMs) {
        this.sessionId = sessionId;
        this.rpcTimeoutMs = rpcTimeoutMs;
    }

    /** Told of suspicions; set once, before the first connection. */
    private volatile BiConsumer<String, String> suspect = (tmId, why) -> { };

    @Override
    public void reportSuspicionsTo(BiConsumer<String, String> suspect) {
        this.suspect = suspect;
    }

    @Override
    public void connect(String tmId, String address) {
        disconnect(tmId);
        ManagedChannel channel = Rpc.channel(address);
        connections.put(tmId, new Connection(address, channel, TaskManagerGatewayGrpc.newStub(channel)));
        // Connected now, not on the first call, so that the connection breaking tells us the
        // TaskManager may be gone even while nothing is sent to it.
        ConnectivityState initial = channel.getState(true);
        watch(tmId, channel, initial, false);
    }

    /**
     * Follows the channel's state (on gRPC's threads): leaving READY (the TaskManager closed the
     * connection, or its process died and the kernel did) or failing to connect is a suspicion.
     * An idle timeout also leaves READY; the ping that follows finds the TaskManager there.
     */
    private void watch(String tmId, ManagedChannel channel, ConnectivityState previous, boolean changed) {
        ConnectivityState now = channel.getState(false);
        if (now == ConnectivityState.SHUTDOWN || channel.isShutdown()) {
            return;
        }
        if (isSuspicious(previous, now, changed)) {
            suspect.accept(tmId, "its connection went from " + previous + " to " + now);
        }
        channel.notifyWhenStateChanged(now, () -> watch(tmId, channel, now, true));
    }

    /**
     * Whether the channel's move from {@code previous} to {@code now} may mean the TaskManager is
     * gone. The state is read when gRPC calls back, so the states in between may be missed: a
     * connection made and closed at once reads as CONNECTING to IDLE, READY never seen; one that
     * left IDLE and closed again reads as IDLE to IDLE. So arriving at IDLE or TRANSIENT_FAILURE is
     * the sign, not only leaving READY, and {@code changed} (gRPC called back: the state moved)
     * with the same state on both ends is a round trip that lost or replaced a connection.
     */
    static boolean isSuspicious(ConnectivityState previous, ConnectivityState now, boolean changed) {
        if (previous == now) {
            return changed && (now == ConnectivityState.IDLE || now == ConnectivityState.READY);
        }
        return previous == ConnectivityState.READY
                || now == ConnectivityState.TRANSIENT_FAILURE
                || (now == ConnectivityState.IDLE && previous == ConnectivityState.CONNECTING);
    }

    /** Whether the channel to the TaskManager is connected now; for tests. */
    boolean isConnected(String tmId) {
        Connection connection = connections.get(tmId);
        return connection != null && connection.channel().getState(false) == ConnectivityState.READY;
    }

    @Override
    public void ping(String tmId, long timeoutMs, Consumer<PingResult> result) {
        Connection connection = connections.get(tmId);
        if (connection == null) {
            result.accept(new PingResult.NoAnswer("no connection to TaskManager " + tmId));
            return;
        }
        ManagedChannel channel = connection.channel();
        // Over a channel of its own: one whose last connection attempt failed keeps failing calls
        // with that old error (gRPC's pick-first stays in TRANSIENT_FAILURE until it connects, even
        // after resetConnectBackoff), so a ping there would not ask the TaskManager again.
        ManagedChannel probe = Rpc.channel(connection.address());
        TaskManagerGatewayGrpc.newStub(probe).withDeadlineAfter(timeoutMs, TimeUnit.MILLISECONDS).ping(
                PingRequest.getDefaultInstance(), new StreamObserver<>() {
                    private String answeredBy = "";

                    @Override
                    public void onNext(PingResponse response) {
                        answeredBy = response.getTmId();
                    }

                    @Override
                    public void onCompleted() {
                        probe.shutdownNow();
                        // It is there: let the regular channel reconnect now, not after its backoff.
                        channel.resetConnectBackoff();
                        result.accept(new PingResult.Answered(answeredBy));
                    }

                    @Override
                    public void onError(Throwable t) {
                        probe.shutdownNow();
                        result.accept(classify(t, channel, timeoutMs));
                    }
                });
    }

    private static PingResult classify(Throwable t, ManagedChannel channel, long timeoutMs) {
        Status.Code code = t instanceof StatusRuntimeException e ? e.getStatus().getCode() : Status.Code.UNKNOWN;
        if (channel.isShutdown()) {
            return new PingResult.NoAnswer("this JobManager closed the connection");
        } else if (code == Status.Code.UNAVAILABLE) {
            return new PingResult.Refused(Rpc.message(t));
        } else if (code == Status.Code.DEADLINE_EXCEEDED || code == Status.Code.CANCELLED) {
            return new PingResult.NoAnswer("no answer within " + timeoutMs + " ms");
        }
        // An error answer comes from a live server (one without Ping: UNIMPLEMENTED).
        return new PingResult.Answered("");
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
            // No suspicion reported here: the ResourceManager sees this failure and probes itself.
            // A channel shut down by disconnect or close fails its calls with UNAVAILABLE
            // ("Channel shutdownNow invoked"), like a TaskManager that is gone: tell them apart.
            onFailure.accept(channel.isShutdown() ? new ClosedByUs(tmId, error) : error);
        }));
    }

    @Override
    public void adopt(String tmId, java.util.List<AttemptId> attempts, Runnable answered,
            Consumer<Throwable> onFailure) {
        Connection connection = connections.get(tmId);
        if (connection == null) {
            onFailure.accept(new IllegalStateException("no connection to TaskManager " + tmId));
            return;
        }
        stub(connection).adoptTasks(io.duraflow.rpc.proto.AdoptTasksRequest.newBuilder().setJmSessionId(sessionId)
                .addAllAttempts(attempts).build(), new StreamObserver<>() {
                    @Override
                    public void onNext(io.duraflow.rpc.proto.Ack value) {}

                    @Override
                    public void onError(Throwable t) {
                        onFailure.accept(t);
                    }

                    @Override
                    public void onCompleted() {
                        answered.run();
                    }
                });
    }

    @Override
    public void cancel(String tmId, AttemptId attempt) {
        Connection connection = connections.get(tmId);
        if (connection != null) {
            stub(connection).cancelTask(CancelTaskRequest.newBuilder().setJmSessionId(sessionId).setAttempt(attempt)
                    .build(), callback(logOnly(tmId, connection, "cancel " + Rpc.describe(attempt))));
        }
    }

    @Override
    public void sendOperatorEvent(String tmId, AttemptId attempt, int nodeId, long sequence, OperatorEvent event) {
        Connection connection = connections.get(tmId);
        if (connection != null) {
            stub(connection).sendOperatorEvent(OperatorEventToTask.newBuilder().setJmSessionId(sessionId)
                    .setAttempt(attempt).setNodeId(nodeId).setSequence(sequence).setEvent(event).build(),
                    callback(logOnly(tmId, connection, "operator event to " + Rpc.describe(attempt))));
        }
    }

    @Override
    public void triggerCheckpoint(String tmId, TriggerCheckpointRequests triggers) {
        Connection connection = connections.get(tmId);
        if (connection != null) {
            stub(connection).triggerCheckpoint(triggers, callback(logOnly(tmId, connection, "trigger checkpoint "
                    + (triggers.getTriggersCount() == 0 ? "-" : triggers.getTriggers(0).getCheckpointId()) + " at "
                    + triggers.getTriggersCount() + " task(s)")));
        }
    }

    @Override
    public void notifyCheckpoint(String tmId, CheckpointNotifications notifications) {
        Connection connection = connections.get(tmId);
        if (connection != null) {
            stub(connection).notifyCheckpoint(notifications, callback(logOnly(tmId, connection, "notify checkpoint "
                    + (notifications.getNotificationsCount() == 0 ? "-"
                            : notifications.getNotifications(0).getCheckpointId()) + " to "
                    + notifications.getNotificationsCount() + " task(s)")));
        }
    }

    @Override
    public void releasePartitions(String tmId, String jobId, List<String> partitionIds, Consumer<Throwable> answered) {
        release(tmId, jobId, partitionIds, false, answered);
    }

    @Override
    public void releaseKeptPartitions(String tmId, String jobId, List<String> partitionIds) {
        release(tmId, jobId, partitionIds, true, error -> { });
    }

    /** The TaskManager answers once the partitions' files are deleted, or refuses if it could not delete them. */
    private void release(String tmId, String jobId, List<String> partitionIds, boolean onlyKept,
            Consumer<Throwable> answered) {
        Connection connection = connections.get(tmId);
        if (connection == null) {
            answered.accept(new IllegalStateException("TaskManager " + tmId + " is not connected"));
            return;
        }
        Consumer<Throwable> log = logOnly(tmId, connection, "release partitions of job " + jobId);
        stub(connection).releasePartitions(ReleasePartitionsRequest.newBuilder().setJmSessionId(sessionId)
                .setJobId(jobId).addAllPartitionIds(partitionIds).setOnlyKept(onlyKept).build(),
                new StreamObserver<>() {
                    @Override
                    public void onNext(io.duraflow.rpc.proto.Ack value) {}

                    @Override
                    public void onError(Throwable t) {
                        log.accept(t);
                        answered.accept(t);
                    }

                    @Override
                    public void onCompleted() {
                        answered.accept(null);
                    }
                });
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

    /**
     * Logs a failed call; one that failed with UNAVAILABLE on a channel this JobManager did not
     * shut down is also a suspicion that the TaskManager is gone.
     */
    private Consumer<Throwable> logOnly(String tmId, Connection connection, String what) {
        return error -> {
            LOG.warn("RPC '{}' to TaskManager {} failed: {}", what, tmId, Rpc.message(error));
            if (!connection.channel().isShutdown() && PeerUnreachableException.isUnavailable(error)) {
                suspect.accept(tmId, "RPC '" + what + "' failed: " + Rpc.message(error));
            }
        };
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
