package io.duraflow.simulation;

import io.duraflow.jobmanager.resourcemanager.TaskManagerTransport;
import io.duraflow.rpc.PeerUnreachableException;
import io.duraflow.rpc.Rpc;
import io.duraflow.rpc.proto.Ack;
import io.duraflow.rpc.proto.AdoptTasksRequest;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.CancelTaskRequest;
import io.duraflow.rpc.proto.CheckpointNotifications;
import io.duraflow.rpc.proto.OperatorEvent;
import io.duraflow.rpc.proto.OperatorEventToTask;
import io.duraflow.rpc.proto.PingRequest;
import io.duraflow.rpc.proto.PingResponse;
import io.duraflow.rpc.proto.ReleasePartitionsRequest;
import io.duraflow.rpc.proto.TaskDeployment;
import io.duraflow.rpc.proto.TriggerCheckpointRequests;
import io.duraflow.taskmanager.TaskManagerService;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * The {@link TaskManagerTransport} of one leadership session over the simulated network, as
 * {@code GrpcTaskManagerTransport} does it over gRPC: every call carries the session, has a
 * deadline, and goes to the TaskManager's real {@link TaskManagerService}; a connection that
 * breaks (the TaskManager died) or a call that fails with UNAVAILABLE is reported as a suspicion,
 * and calls cut off by this JobManager's own disconnect fail with {@link ClosedByUs}.
 */
final class SimTransport implements TaskManagerTransport {
    private final String sessionId;
    private final SimProcess jobManager;
    private final SimCluster cluster;
    private final long rpcTimeoutMs;
    /** By TaskManager id. */
    private final Map<String, Connection> connections = new HashMap<>();
    private BiConsumer<String, String> suspect = (tmId, why) -> { };

    private final class Connection {
        final String tmId;
        final String address;
        /** The process at the address when the connection was made: a restarted one is another connection. */
        final SimTaskManager target;
        final Runnable unwatch;
        boolean shutdown;

        Connection(String tmId, String address) {
            this.tmId = tmId;
            this.address = address;
            this.target = cluster.taskManagerAt(address);
            this.unwatch = target == null ? () -> { }
                    : cluster.network().watch(target.process(), () -> {
                        if (!shutdown) {
                            suspect.accept(tmId, "its connection went from READY to TRANSIENT_FAILURE");
                        }
                    });
        }
    }

    SimTransport(String sessionId, SimProcess jobManager, SimCluster cluster, long rpcTimeoutMs) {
        this.sessionId = sessionId;
        this.jobManager = jobManager;
        this.cluster = cluster;
        this.rpcTimeoutMs = rpcTimeoutMs;
    }

    @Override
    public void reportSuspicionsTo(BiConsumer<String, String> suspect) {
        this.suspect = suspect;
    }

    @Override
    public void connect(String tmId, String address) {
        disconnect(tmId);
        connections.put(tmId, new Connection(tmId, address));
    }

    @Override
    public void disconnect(String tmId) {
        Connection connection = connections.remove(tmId);
        if (connection != null) {
            shutdown(connection);
        }
    }

    private void shutdown(Connection connection) {
        connection.shutdown = true;
        connection.unwatch.run();
        cluster.network().cutOff(call -> call.tag == connection, SimNetwork.unavailable("Channel shutdownNow invoked"));
    }

    @Override
    public void close() {
        connections.values().forEach(this::shutdown);
        connections.clear();
    }

    /** A unary call to the TaskManager's service on the connection; null if there is none. */
    private CompletableFuture<Ack> call(Connection connection, long timeoutMs,
            BiConsumer<TaskManagerService, StreamObserver<Ack>> request) {
        SimTaskManager target = connection.target;
        return cluster.network().call(jobManager, target == null ? null : target.process(),
                target == null ? null : target.rpc, timeoutMs, connection, answer -> request.accept(target.service(),
                        observer(answer)));
    }

    private static <T> StreamObserver<T> observer(SimNetwork.Answer<T> answer) {
        return new StreamObserver<>() {
            private T value;

            @Override
            public void onNext(T next) {
                value = next;
            }

            @Override
            public void onError(Throwable t) {
                answer.fail(t);
            }

            @Override
            public void onCompleted() {
                answer.ok(value);
            }
        };
    }

    /** A call whose failure is only logged, and suspected if UNAVAILABLE on a connection still open. */
    private void send(String tmId, String what, BiConsumer<TaskManagerService, StreamObserver<Ack>> request) {
        Connection connection = connections.get(tmId);
        if (connection == null) {
            return;
        }
        call(connection, rpcTimeoutMs, request).whenComplete((ack, error) -> {
            if (error != null) {
                SimLog.LOG.debug("RPC '{}' to TaskManager {} failed: {}", what, tmId, Rpc.message(error));
                if (!connection.shutdown && PeerUnreachableException.isUnavailable(error)) {
                    suspect.accept(tmId, "RPC '" + what + "' failed: " + Rpc.message(error));
                }
            }
        });
    }

    @Override
    public void deploy(String tmId, TaskDeployment deployment, Consumer<Throwable> onFailure) {
        Connection connection = connections.get(tmId);
        if (connection == null) {
            onFailure.accept(new IllegalStateException("no connection to TaskManager " + tmId));
            return;
        }
        call(connection, rpcTimeoutMs, (service, observer) -> service.deployTask(deployment,
                accepted(connection.target, deployment, observer)))
                .whenComplete((ack, error) -> {
                    if (error != null) {
                        onFailure.accept(connection.shutdown ? new ClosedByUs(tmId, error) : error);
                    }
                });
    }

    /** The TaskManager answers in its mailbox: an accepted deployment is checked against the fencing rule there. */
    private StreamObserver<Ack> accepted(SimTaskManager target, TaskDeployment deployment, StreamObserver<Ack> answer) {
        return new StreamObserver<>() {
            @Override
            public void onNext(Ack value) {
                answer.onNext(value);
            }

            @Override
            public void onError(Throwable t) {
                answer.onError(t);
            }

            @Override
            public void onCompleted() {
                cluster.invariants().deploymentAccepted(target, deployment);
                answer.onCompleted();
            }
        };
    }

    @Override
    public void adopt(String tmId, List<AttemptId> attempts, Runnable answered, Consumer<Throwable> onFailure) {
        Connection connection = connections.get(tmId);
        if (connection == null) {
            onFailure.accept(new IllegalStateException("no connection to TaskManager " + tmId));
            return;
        }
        AdoptTasksRequest request = AdoptTasksRequest.newBuilder().setJmSessionId(sessionId).addAllAttempts(attempts)
                .build();
        call(connection, rpcTimeoutMs, (service, observer) -> service.adoptTasks(request, observer))
                .whenComplete((ack, error) -> {
                    if (error == null) {
                        answered.run();
                    } else {
                        onFailure.accept(error);
                    }
                });
    }

    @Override
    public void cancel(String tmId, AttemptId attempt) {
        if (connections.containsKey(tmId)) {
            cluster.invariants().cancelSent(tmId, attempt);
        }
        CancelTaskRequest request = CancelTaskRequest.newBuilder().setJmSessionId(sessionId).setAttempt(attempt).build();
        send(tmId, "cancel " + Rpc.describe(attempt), (service, observer) -> service.cancelTask(request, observer));
    }

    @Override
    public void sendOperatorEvent(String tmId, AttemptId attempt, int nodeId, long sequence, OperatorEvent event) {
        OperatorEventToTask request = OperatorEventToTask.newBuilder().setJmSessionId(sessionId).setAttempt(attempt)
                .setNodeId(nodeId).setSequence(sequence).setEvent(event).build();
        send(tmId, "operator event to " + Rpc.describe(attempt),
                (service, observer) -> service.sendOperatorEvent(request, observer));
    }

    @Override
    public void triggerCheckpoint(String tmId, TriggerCheckpointRequests triggers) {
        triggers.getTriggersList().forEach(request -> cluster.checkpointTriggered(triggers.getJmSessionId(), request));
        send(tmId, "trigger checkpoint " + triggers.getTriggers(0).getCheckpointId(),
                (service, observer) -> service.triggerCheckpoint(triggers, observer));
    }

    @Override
    public void notifyCheckpoint(String tmId, CheckpointNotifications notifications) {
        send(tmId, "notify checkpoint " + notifications.getNotifications(0).getCheckpointId(),
                (service, observer) -> service.notifyCheckpoint(notifications, observer));
    }

    @Override
    public void releasePartitions(String tmId, String jobId, List<String> partitionIds, Consumer<Throwable> answered) {
        release(tmId, jobId, partitionIds, false, answered);
    }

    @Override
    public void releaseKeptPartitions(String tmId, String jobId, List<String> partitionIds) {
        release(tmId, jobId, partitionIds, true, error -> { });
    }

    private void release(String tmId, String jobId, List<String> partitionIds, boolean onlyKept,
            Consumer<Throwable> answered) {
        Connection connection = connections.get(tmId);
        if (connection == null) {
            answered.accept(new IllegalStateException("TaskManager " + tmId + " is not connected"));
            return;
        }
        ReleasePartitionsRequest request = ReleasePartitionsRequest.newBuilder().setJmSessionId(sessionId)
                .setJobId(jobId).addAllPartitionIds(partitionIds).setOnlyKept(onlyKept).build();
        call(connection, rpcTimeoutMs, (service, observer) -> service.releasePartitions(request, observer))
                .whenComplete((ack, error) -> answered.accept(error));
    }

    @Override
    public void ping(String tmId, long timeoutMs, Consumer<PingResult> result) {
        Connection connection = connections.get(tmId);
        if (connection == null) {
            result.accept(new PingResult.NoAnswer("no connection to TaskManager " + tmId));
            return;
        }
        // A fresh connection to whatever runs at the address now, as the real probe channel is.
        SimTaskManager target = cluster.taskManagerAt(connection.address);
        cluster.network().<PingResponse>call(jobManager, target == null ? null : target.process(),
                target == null ? null : target.rpc, timeoutMs, "ping",
                answer -> target.service().ping(PingRequest.getDefaultInstance(), observer(answer)))
                .whenComplete((response, error) -> result.accept(classify(response, error, connection, timeoutMs)));
    }

    private static PingResult classify(PingResponse response, Throwable error, Connection connection, long timeoutMs) {
        if (error == null) {
            return new PingResult.Answered(response.getTmId());
        }
        Status.Code code = error instanceof StatusRuntimeException e ? e.getStatus().getCode() : Status.Code.UNKNOWN;
        if (connection.shutdown) {
            return new PingResult.NoAnswer("this JobManager closed the connection");
        } else if (code == Status.Code.UNAVAILABLE) {
            return new PingResult.Refused(Rpc.message(error));
        } else if (code == Status.Code.DEADLINE_EXCEEDED) {
            return new PingResult.NoAnswer("no answer within " + timeoutMs + " ms");
        }
        return new PingResult.Answered("");
    }

}
