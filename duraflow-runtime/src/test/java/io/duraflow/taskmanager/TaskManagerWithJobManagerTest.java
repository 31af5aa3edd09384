package io.duraflow.taskmanager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.duraflow.config.Configuration;
import io.duraflow.jobmanager.JobManagerRunner;
import io.duraflow.rpc.Rpc;
import io.duraflow.rpc.proto.Ack;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.ClusterOverview;
import io.duraflow.rpc.proto.DispatcherGatewayGrpc;
import io.duraflow.rpc.proto.Empty;
import io.duraflow.rpc.proto.JobIdRequest;
import io.duraflow.rpc.proto.JobManagerGatewayGrpc;
import io.duraflow.rpc.proto.JobManagerHeartbeat;
import io.duraflow.rpc.proto.JobState;
import io.duraflow.rpc.proto.JobStatus;
import io.duraflow.rpc.proto.OperatorEvent;
import io.duraflow.rpc.proto.OperatorEventFromTask;
import io.duraflow.rpc.proto.RegisterTaskManagerRequest;
import io.duraflow.rpc.proto.RegisterTaskManagerResponse;
import io.duraflow.rpc.proto.RequestSplit;
import io.duraflow.rpc.proto.SubmitJobRequest;
import io.duraflow.rpc.proto.TaskManagerHeartbeat;
import io.duraflow.rpc.proto.TaskManagerInfo;
import io.duraflow.rpc.proto.TaskState;
import io.duraflow.rpc.proto.TaskStateUpdate;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A JobManager and a TaskManager in this JVM, talking gRPC on loopback: what happens to a final
 * report lost on the way, and what the JobManager refuses from TaskManagers.
 */
class TaskManagerWithJobManagerTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    private JobManagerRunner jobManager;
    private TaskManagerRunner taskManager;
    private ManagedChannel channel;
    private Configuration config;

    @BeforeEach
    void startJobManager() throws Exception {
        config = Configuration.fromMap(Map.of("cluster.work-dir", dir.resolve("work").toString(),
                "jobmanager.rpc.port", "0", "heartbeat.interval", "200ms", "heartbeat.timeout", "5s",
                "taskmanager.slots", "2", "taskmanager.data-dir", dir.resolve("tm").toString()));
        jobManager = JobManagerRunner.start(config);
        channel = Rpc.channel("127.0.0.1:" + jobManager.port());
    }

    @AfterEach
    void stop() {
        if (taskManager != null) {
            taskManager.close();
        }
        Rpc.shutdown(channel);
        jobManager.close();
    }

    @Test
    void aLostFinishedReportOfASinkTaskComesWithTheNextHeartbeatAndTheTaskDoesNotRunAgain() throws Exception {
        AtomicInteger dropped = new AtomicInteger();
        taskManager = TaskManagerRunner.start(config, "127.0.0.1:" + jobManager.port(), 30_000,
                services -> new TaskExecutorServices(services.mailbox(),
                        dropFirstSinkFinish(services.clients(), dropped), services.taskThreads(),
                        services.planBuilds(), services.planBuilder(), services.tasks()));
        Path marker = dir.resolve("marker");

        var dispatcher = DispatcherGatewayGrpc.newBlockingStub(channel);
        String jobId = await().atMost(TIMEOUT).ignoreExceptions().until(() -> dispatcher.submitJob(
                SubmitJobRequest.newBuilder().setJobClass(MarkerJob.class.getName())
                        .putParams("marker", marker.toString()).build()).getJobId(), id -> !id.isEmpty());

        JobStatus status = await().atMost(TIMEOUT).until(
                () -> dispatcher.getJobStatus(JobIdRequest.newBuilder().setJobId(jobId).build()),
                s -> s.getState() != JobState.JOB_RUNNING && s.getState() != JobState.JOB_CREATED);

        assertThat(dropped).as("a FINISHED report was lost").hasValue(1);
        assertThat(status.getState()).as("%s", status).isEqualTo(JobState.JOB_FINISHED);
        assertThat(status.getRestarts()).isZero();
        assertThat(Files.readAllLines(marker)).as("each sink task made its output visible once")
                .containsExactlyInAnyOrder("subtask=0 attempt=0", "subtask=1 attempt=0");
        await().atMost(TIMEOUT).untilAsserted(() -> assertThat(
                dispatcher.getClusterOverview(Empty.getDefaultInstance()).getTaskManagersList())
                .singleElement().extracting(TaskManagerInfo::getFreeSlots).as("every slot is free again")
                .isEqualTo(2));
    }

    @Test
    void anOperatorEventOfAnotherSessionIsRefused() {
        var gateway = JobManagerGatewayGrpc.newBlockingStub(channel);
        OperatorEventFromTask stale = OperatorEventFromTask.newBuilder()
                .setAttempt(AttemptId.newBuilder().setJobId("job")).setNodeId(1).setJmSessionId("an-old-session")
                .setEvent(OperatorEvent.newBuilder().setRequestSplit(RequestSplit.getDefaultInstance())).build();

        StatusRuntimeException refused = await().atMost(TIMEOUT).until(() -> catchStatus(
                () -> gateway.sendOperatorEvent(stale)), e -> e.getStatus().getCode() != Status.Code.UNAVAILABLE);

        assertThat(refused.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
        assertThat(refused.getStatus().getDescription()).contains("an-old-session");
    }

    @Test
    void aTaskManagerWhoseAddressCannotBeReachedIsNotRegistered() throws Exception {
        var gateway = JobManagerGatewayGrpc.newBlockingStub(channel);
        int closedPort;
        try (var socket = new java.net.ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        for (String address : List.of("no-port-here", "127.0.0.1:" + closedPort, "127.0.0.1:99999")) {
            StatusRuntimeException refused = await().atMost(TIMEOUT).until(() -> catchStatus(
                    () -> gateway.registerTaskManager(RegisterTaskManagerRequest.newBuilder().setTmId("tm-bad")
                            .setAddress(address).setSlots(4).build())),
                    e -> e.getStatus().getCode() != Status.Code.UNAVAILABLE);

            assertThat(refused.getStatus().getCode()).as(address).isEqualTo(Status.Code.INVALID_ARGUMENT);
            assertThat(refused.getStatus().getDescription()).as(address)
                    .contains("advertises address '" + address + "'").contains("taskmanager.rpc.address");
        }
        ClusterOverview overview = DispatcherGatewayGrpc.newBlockingStub(channel)
                .getClusterOverview(Empty.getDefaultInstance());
        assertThat(overview.getTaskManagersList()).isEmpty();
    }

    private static StatusRuntimeException catchStatus(Runnable call) {
        try {
            call.run();
            return new StatusRuntimeException(Status.OK);
        } catch (StatusRuntimeException e) {
            return e;
        }
    }

    /**
     * Connects as usual, but the first FINISHED report of a task with collected records (a sink
     * task of {@link MarkerJob}) fails as if the network dropped it: the JobManager never sees it.
     */
    private static JobManagerClient.Factory dropFirstSinkFinish(JobManagerClient.Factory real, AtomicInteger dropped) {
        return address -> {
            JobManagerClient client = real.connect(address);
            return new JobManagerClient() {
                @Override
                public CompletableFuture<RegisterTaskManagerResponse> register(RegisterTaskManagerRequest request) {
                    return client.register(request);
                }

                @Override
                public CompletableFuture<JobManagerHeartbeat> heartbeat(TaskManagerHeartbeat heartbeat) {
                    return client.heartbeat(heartbeat);
                }

                @Override
                public CompletableFuture<Ack> updateTaskState(TaskStateUpdate update) {
                    if (update.getState() == TaskState.FINISHED && update.getCollectedCount() > 0
                            && dropped.compareAndSet(0, 1)) {
                        return CompletableFuture.failedFuture(Status.UNAVAILABLE
                                .withDescription("io exception (dropped by the test)").asRuntimeException());
                    }
                    return client.updateTaskState(update);
                }

                @Override
                public CompletableFuture<Ack> sendOperatorEvent(OperatorEventFromTask event) {
                    return client.sendOperatorEvent(event);
                }

                @Override
                public CompletableFuture<Ack> acknowledgeCheckpoint(
                        io.duraflow.rpc.proto.AcknowledgeCheckpointRequest request) {
                    return client.acknowledgeCheckpoint(request);
                }

                @Override
                public CompletableFuture<Ack> declineCheckpoint(io.duraflow.rpc.proto.DeclineCheckpointRequest request) {
                    return client.declineCheckpoint(request);
                }

                @Override
                public CompletableFuture<Ack> reportInputEnded(io.duraflow.rpc.proto.TaskInputEnded report) {
                    return client.reportInputEnded(report);
                }

                @Override
                public void close() {
                    client.close();
                }
            };
        };
    }
}
