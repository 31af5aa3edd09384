package io.duraflow.taskmanager;

import io.duraflow.rpc.Rpc;
import io.duraflow.rpc.proto.AcknowledgeCheckpointRequest;
import io.duraflow.rpc.proto.Ack;
import io.duraflow.rpc.proto.DeclineCheckpointRequest;
import io.duraflow.rpc.proto.JobManagerGatewayGrpc;
import io.duraflow.rpc.proto.JobManagerHeartbeat;
import io.duraflow.rpc.proto.OperatorEventFromTask;
import io.duraflow.rpc.proto.RegisterTaskManagerRequest;
import io.duraflow.rpc.proto.RegisterTaskManagerResponse;
import io.duraflow.rpc.proto.TaskManagerHeartbeat;
import io.duraflow.rpc.proto.TaskInputEnded;
import io.duraflow.rpc.proto.TaskStateUpdate;
import io.grpc.ManagedChannel;
import io.grpc.stub.StreamObserver;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

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
        return call(REGISTER_TIMEOUT_MS, (gateway, answer) -> gateway.registerTaskManager(request, answer));
    }

    @Override
    public CompletableFuture<JobManagerHeartbeat> heartbeat(TaskManagerHeartbeat heartbeat) {
        return call(heartbeatTimeoutMs, (gateway, answer) -> gateway.heartbeat(heartbeat, answer));
    }

    @Override
    public CompletableFuture<Ack> updateTaskState(TaskStateUpdate update) {
        return call(REPORT_TIMEOUT_MS, (gateway, answer) -> gateway.updateTaskState(update, answer));
    }

    @Override
    public CompletableFuture<Ack> sendOperatorEvent(OperatorEventFromTask event) {
        return call(REPORT_TIMEOUT_MS, (gateway, answer) -> gateway.sendOperatorEvent(event, answer));
    }

    @Override
    public CompletableFuture<Ack> acknowledgeCheckpoint(AcknowledgeCheckpointRequest request) {
        return call(REPORT_TIMEOUT_MS, (gateway, answer) -> gateway.acknowledgeCheckpoint(request, answer));
    }

    @Override
    public CompletableFuture<Ack> declineCheckpoint(DeclineCheckpointRequest request) {
        return call(REPORT_TIMEOUT_MS, (gateway, answer) -> gateway.declineCheckpoint(request, answer));
    }

    @Override
    public CompletableFuture<Ack> reportInputEnded(TaskInputEnded report) {
        return call(REPORT_TIMEOUT_MS, (gateway, answer) -> gateway.reportInputEnded(report, answer));
    }

    @Override
    public CompletableFuture<Void> fetchArtifact(io.duraflow.rpc.proto.FetchArtifactRequest request,
            java.io.OutputStream out, long timeoutMs) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        stub.withDeadlineAfter(timeoutMs, TimeUnit.MILLISECONDS).fetchArtifact(request, new StreamObserver<>() {
            @Override
            public void onNext(io.duraflow.rpc.proto.ArtifactChunk chunk) {
                try {
                    chunk.getData().writeTo(out);
                } catch (java.io.IOException e) {
                    done.completeExceptionally(e);
                }
            }

            @Override
            public void onError(Throwable t) {
                done.completeExceptionally(t);
            }

            @Override
            public void onCompleted() {
                done.complete(null);
            }
        });
        return done;
    }

    @Override
    public void close() {
        // shutdownNow: a call to a frozen leader fails at once instead of holding its deadline.
        channel.shutdownNow();
    }

    /** Starts a unary call with a deadline of {@code timeoutMs}; its answer completes the future. */
    private <T> CompletableFuture<T> call(long timeoutMs,
            BiConsumer<JobManagerGatewayGrpc.JobManagerGatewayStub, StreamObserver<T>> call) {
        CompletableFuture<T> answer = new CompletableFuture<>();
        call.accept(stub.withDeadlineAfter(timeoutMs, TimeUnit.MILLISECONDS), new StreamObserver<>() {
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
        });
        return answer;
    }
}
