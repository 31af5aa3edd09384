package io.duraflow.jobmanager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.duraflow.config.Configuration;
import io.duraflow.rpc.Rpc;
import io.duraflow.rpc.proto.AcknowledgeCheckpointRequest;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.CheckpointFailureData;
import io.duraflow.rpc.proto.DeclineCheckpointRequest;
import io.duraflow.rpc.proto.JobManagerGatewayGrpc;
import io.duraflow.rpc.proto.KeyedStateHandleData;
import io.duraflow.rpc.proto.OperatorSubtaskStateData;
import io.duraflow.rpc.proto.TaskInputEnded;
import io.duraflow.rpc.proto.TaskStateSnapshotData;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The checkpoint RPCs of the JobManager gateway over gRPC on loopback: fenced by the leadership
 * session like operator events, and a message that cannot be decoded is an invalid argument.
 */
class CheckpointRpcTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final AttemptId ATTEMPT = AttemptId.newBuilder().setJobId("job").setVertex(0).setSubtask(0).build();

    @TempDir
    Path dir;

    private JobManagerRunner jobManager;
    private ManagedChannel channel;

    @BeforeEach
    void startJobManager() throws Exception {
        jobManager = JobManagerRunner.start(Configuration.fromMap(Map.of("cluster.work-dir",
                dir.resolve("work").toString(), "jobmanager.rpc.port", "0")));
        channel = Rpc.channel("127.0.0.1:" + jobManager.port());
    }

    @AfterEach
    void stop() {
        Rpc.shutdown(channel);
        jobManager.close();
    }

    private static StatusRuntimeException statusOf(Runnable call) {
        try {
            call.run();
            return new StatusRuntimeException(Status.OK);
        } catch (StatusRuntimeException e) {
            return e;
        }
    }

    /** The answer once the JobManager leads (a standby answers UNAVAILABLE). */
    private static StatusRuntimeException answer(Runnable call) {
        return await().atMost(TIMEOUT).until(() -> statusOf(call),
                e -> e.getStatus().getCode() != Status.Code.UNAVAILABLE);
    }

    @Test
    void checkpointMessagesOfAnotherSessionAreRefused() {
        var gateway = JobManagerGatewayGrpc.newBlockingStub(channel);
        Map<String, Runnable> calls = Map.of(
                "ack", () -> gateway.acknowledgeCheckpoint(AcknowledgeCheckpointRequest.newBuilder()
                        .setJmSessionId("an-old-session").setAttempt(ATTEMPT).setCheckpointId(1).build()),
                "decline", () -> gateway.declineCheckpoint(DeclineCheckpointRequest.newBuilder()
                        .setJmSessionId("an-old-session").setAttempt(ATTEMPT).setCheckpointId(1).build()),
                "input ended", () -> gateway.reportInputEnded(TaskInputEnded.newBuilder()
                        .setJmSessionId("an-old-session").setAttempt(ATTEMPT).build()));
        calls.forEach((name, call) -> {
            StatusRuntimeException refused = answer(call);
            assertThat(refused.getStatus().getCode()).as(name).isEqualTo(Status.Code.PERMISSION_DENIED);
            assertThat(refused.getStatus().getDescription()).as(name).contains("an-old-session");
        });
    }

    @Test
    void checkpointMessagesOfThisSessionThatCannotBeDecodedAreInvalidArguments() {
        var gateway = JobManagerGatewayGrpc.newBlockingStub(channel);
        Supplier<String> session = () -> jobManager.sessionId();
        await().atMost(TIMEOUT).until(() -> session.get() != null && !session.get().isEmpty());
        TaskStateSnapshotData unknownHandle = TaskStateSnapshotData.newBuilder().putOperators("op",
                OperatorSubtaskStateData.newBuilder().addKeyedState(KeyedStateHandleData.getDefaultInstance()).build())
                .build();

        StatusRuntimeException ack = answer(() -> gateway.acknowledgeCheckpoint(AcknowledgeCheckpointRequest
                .newBuilder().setJmSessionId(session.get()).setAttempt(ATTEMPT).setCheckpointId(1)
                .setState(unknownHandle).build()));
        StatusRuntimeException decline = answer(() -> gateway.declineCheckpoint(DeclineCheckpointRequest.newBuilder()
                .setJmSessionId(session.get()).setAttempt(ATTEMPT).setCheckpointId(1)
                .setFailure(CheckpointFailureData.newBuilder().setReason("NO_SUCH_REASON")).build()));
        StatusRuntimeException ended = answer(() -> gateway.reportInputEnded(TaskInputEnded.newBuilder()
                .setJmSessionId(session.get()).setAttempt(ATTEMPT).build()));

        assertThat(ack.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(ack.getStatus().getDescription()).contains("keyed state handle of no known kind");
        assertThat(decline.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(decline.getStatus().getDescription()).contains("NO_SUCH_REASON");
        assertThat(ended.getStatus().getCode()).as("an unknown job's report is ignored").isEqualTo(Status.Code.OK);
    }
}
