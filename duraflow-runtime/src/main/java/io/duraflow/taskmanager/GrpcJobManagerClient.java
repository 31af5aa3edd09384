package io.duraflow.taskmanager;

import io.duraflow.rpc.Rpc;
import io.duraflow.rpc.proto.Ack;
import io.duraflow.rpc.proto.JobManagerGatewayGrpc;
import io.duraflow.rpc.proto.JobManagerHeartbeat;
import io.duraflow.rpc.proto.OperatorEventFromTask;
import io.duraflow.rpc.proto.RegisterTaskManagerRequest;
import io.duraflow.rpc.proto.RegisterTaskManagerResponse;
import io.duraflow.rpc.proto.TaskManagerHeartbeat;
import io.duraflow.rpc.proto.TaskStateUpdate;
import io.grpc.ManagedChannel;
import io.grpc.stub.StreamObserver;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** {@link JobManagerClient} over one gRPC channel; every call has a deadline. */
final class GrpcJobManagerClient implements JobManagerClient {
    /** Registration answers quickly unless the JobManager is frozen; 5 s as before. */
    private static final long REGISTER_TIMEOUT_MS = 5_000;
    private static final long REPORT_TIMEOUT_MS = 10_000;

    private final ManagedChannel channel;
    private final JobManagerGatewayGrpc.JobManagerGatewayStub stub;
    private final long heartbeatTimeoutMs;

    GrpcJobManagerClient(String address, long heartbeatTimeoutMs) {
        this.channel = Rpc.channel(address);
        this.stub = JobManagerGatewayGrpc.newStub(channel);
        this.heartbeatTimeoutMs = heartbeatTimeoutMs;
    }

    @Override
    public CompletableFuture<RegisterTaskManagerResponse> register(RegisterTaskManagerRequest request) {
        CompletableFuture<RegisterTaskManagerResponse> answer = new CompletableFuture<>();
        stub.withDeadlineAfter(REGISTER_TIMEOUT_MS, TimeUnit.MILLISECONDS).registerTaskManager(request, into(answer));
        return answer;
    }

    @Override
    public CompletableFuture<JobManagerHeartbeat> heartbeat(TaskManagerHeartbeat heartbeat) {
        CompletableFuture<JobManagerHeartbeat> answer = new CompletableFuture<>();
        stub.withDeadlineAfter(heartbeatTimeoutMs, TimeUnit.MILLISECONDS).heartbeat(heartbeat, into(answer));
        return answer;
    }

    @Override
    public CompletableFuture<Ack> updateTaskState(TaskStateUpdate update) {
        CompletableFuture<Ack> answer = new CompletableFuture<>();
        stub.withDeadlineAfter(REPORT_TIMEOUT_MS, TimeUnit.MILLISECONDS).updateTaskState(update, into(answer));
        return answer;
    }

    @Override
    public CompletableFuture<Ack> sendOperatorEvent(OperatorEventFromTask event) {
        CompletableFuture<Ack> answer = new CompletableFuture<>();
        stub.withDeadlineAfter(REPORT_TIMEOUT_MS, TimeUnit.MILLISECONDS).sendOperatorEvent(event, into(answer));
        return answer;
    }

    @Override
    public void close() {
        // shutdownNow: a call to a frozen leader fails at once instead of holding its deadline.
        channel.shutdownNow();
    }

    private static <T> StreamObserver<T> into(CompletableFuture<T> answer) {
        return new StreamObserver<>() {
            @Override
            public void onNext(T value) {
                answer.complete(value);
            }

            @Override
            public void onError(Throwable t) {
                answer.completeExceptionally(t);
            }

            @Override
            public void onCompleted() {}
        };
    }
}
