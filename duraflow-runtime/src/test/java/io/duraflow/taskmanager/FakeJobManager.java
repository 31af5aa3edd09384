package io.duraflow.taskmanager;

import io.duraflow.rpc.proto.AcknowledgeCheckpointRequest;
import io.duraflow.rpc.proto.Ack;
import io.duraflow.rpc.proto.DeclineCheckpointRequest;
import io.duraflow.rpc.proto.TaskInputEnded;
import io.duraflow.rpc.proto.JobManagerHeartbeat;
import io.duraflow.rpc.proto.OperatorEventFromTask;
import io.duraflow.rpc.proto.RegisterTaskManagerRequest;
import io.duraflow.rpc.proto.RegisterTaskManagerResponse;
import io.duraflow.rpc.proto.TaskManagerHeartbeat;
import io.duraflow.rpc.proto.TaskStateUpdate;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * JobManagers for the TaskExecutor harness: every call is recorded with its future, and the test
 * answers, fails or never answers it.
 */
final class FakeJobManager implements JobManagerClient.Factory {
    /** One call and the future the executor waits on. */
    record Call<Q, A>(String address, Q request, CompletableFuture<A> answer) {}

    final List<Call<RegisterTaskManagerRequest, RegisterTaskManagerResponse>> registrations =
            new CopyOnWriteArrayList<>();
    final List<Call<TaskManagerHeartbeat, JobManagerHeartbeat>> heartbeats = new CopyOnWriteArrayList<>();
    final List<Call<TaskStateUpdate, Ack>> reports = new CopyOnWriteArrayList<>();
    final List<Call<OperatorEventFromTask, Ack>> operatorEvents = new CopyOnWriteArrayList<>();
    final List<Call<AcknowledgeCheckpointRequest, Ack>> acknowledgements = new CopyOnWriteArrayList<>();
    final List<Call<DeclineCheckpointRequest, Ack>> declines = new CopyOnWriteArrayList<>();
    final List<Call<TaskInputEnded, Ack>> inputEnds = new CopyOnWriteArrayList<>();
    final List<String> closed = new CopyOnWriteArrayList<>();

    @Override
    public JobManagerClient connect(String address) {
        return new JobManagerClient() {
            @Override
            public CompletableFuture<RegisterTaskManagerResponse> register(RegisterTaskManagerRequest request) {
                return record(registrations, address, request);
            }

            @Override
            public CompletableFuture<JobManagerHeartbeat> heartbeat(TaskManagerHeartbeat heartbeat) {
                return record(heartbeats, address, heartbeat);
            }

            @Override
            public CompletableFuture<Ack> updateTaskState(TaskStateUpdate update) {
                return record(reports, address, update);
            }

            @Override
            public CompletableFuture<Ack> sendOperatorEvent(OperatorEventFromTask event) {
                return record(operatorEvents, address, event);
            }

            @Override
            public CompletableFuture<Ack> acknowledgeCheckpoint(AcknowledgeCheckpointRequest request) {
                return record(acknowledgements, address, request);
            }

            @Override
            public CompletableFuture<Ack> declineCheckpoint(DeclineCheckpointRequest request) {
                return record(declines, address, request);
            }

            @Override
            public CompletableFuture<Ack> reportInputEnded(TaskInputEnded report) {
                return record(inputEnds, address, report);
            }

            @Override
            public void close() {
                closed.add(address);
            }
        };
    }

    private static <Q, A> CompletableFuture<A> record(List<Call<Q, A>> calls, String address, Q request) {
        CompletableFuture<A> answer = new CompletableFuture<>();
        calls.add(new Call<>(address, request, answer));
        return answer;
    }

    static <Q, A> Call<Q, A> last(List<Call<Q, A>> calls) {
        return calls.get(calls.size() - 1);
    }
}
