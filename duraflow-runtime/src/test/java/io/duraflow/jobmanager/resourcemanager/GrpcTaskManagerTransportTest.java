package io.duraflow.jobmanager.resourcemanager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.duraflow.jobmanager.resourcemanager.TaskManagerTransport.PingResult;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.PingRequest;
import io.duraflow.rpc.proto.PingResponse;
import io.duraflow.rpc.proto.TaskManagerGatewayGrpc;
import io.grpc.ConnectivityState;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The gRPC transport's signs of a dead TaskManager, against a real server on loopback that the
 * test stops (connections closed at once, as after a SIGKILL): pings, suspicions from the channel
 * state and from failed calls, and none for a channel the JobManager shut down itself.
 */
class GrpcTaskManagerTransportTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private final GrpcTaskManagerTransport transport = new GrpcTaskManagerTransport("s1", 5_000);
    private final List<String> suspicions = new CopyOnWriteArrayList<>();
    private Server taskManager;
    private int port;

    @BeforeEach
    void start() throws Exception {
        taskManager = server(0);
        port = taskManager.getPort();
        transport.reportSuspicionsTo((tmId, why) -> suspicions.add(tmId + ": " + why));
        transport.connect("tm-1", "127.0.0.1:" + port);
    }

    @AfterEach
    void stop() {
        transport.close();
        taskManager.shutdownNow();
    }

    /** A TaskManager that answers pings as tm-1. */
    private static Server server(int port) throws Exception {
        return NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", port))
                .addService(new TaskManagerGatewayGrpc.TaskManagerGatewayImplBase() {
                    @Override
                    public void ping(PingRequest request, StreamObserver<PingResponse> response) {
                        response.onNext(PingResponse.newBuilder().setTmId("tm-1").build());
                        response.onCompleted();
                    }

                    /** Job "released": confirmed; "undeletable": refused; any other: never answered. */
                    @Override
                    public void releasePartitions(io.duraflow.rpc.proto.ReleasePartitionsRequest request,
                            StreamObserver<io.duraflow.rpc.proto.Ack> response) {
                        if (request.getJobId().equals("released")) {
                            response.onNext(io.duraflow.rpc.proto.Ack.getDefaultInstance());
                            response.onCompleted();
                        } else if (request.getJobId().equals("undeletable")) {
                            response.onError(io.grpc.Status.INTERNAL.withDescription("could not delete the partitions"
                                    + " of job undeletable").asRuntimeException());
                        }
                    }
                }).build().start();
    }

    private PingResult ping() throws Exception {
        CompletableFuture<PingResult> result = new CompletableFuture<>();
        transport.ping("tm-1", 2_000, result::complete);
        return result.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    }

    private void stopTaskManager() throws InterruptedException {
        taskManager.shutdownNow();
        taskManager.awaitTermination(5, TimeUnit.SECONDS);
    }

    @Test
    void aPingIsAnsweredRefusedOnceTheServerIsGoneAndAnsweredAtOnceWhenItIsBack() throws Exception {
        assertThat(ping()).isEqualTo(new PingResult.Answered("tm-1"));

        stopTaskManager();
        assertThat(ping()).isInstanceOf(PingResult.Refused.class);
        assertThat(ping()).as("still nobody there").isInstanceOf(PingResult.Refused.class);

        // Back at the same address: the very next ping connects again, although the channel's
        // reconnect backoff (1 s and more) after the refusals has not passed.
        taskManager = server(port);
        assertThat(ping()).isEqualTo(new PingResult.Answered("tm-1"));
    }

    @Test
    void theConnectionBreakingIsASuspicionEvenWithoutACall() throws Exception {
        // Connected at registration, before any call.
        await().atMost(TIMEOUT).until(() -> transport.isConnected("tm-1"));
        assertThat(suspicions).isEmpty();

        stopTaskManager();

        await().atMost(TIMEOUT).until(() -> !suspicions.isEmpty());
        assertThat(suspicions.get(0)).startsWith("tm-1: its connection went from READY to ");
    }

    private Throwable release(GrpcTaskManagerTransport via, String jobId) throws Exception {
        CompletableFuture<Throwable> answer = new CompletableFuture<>();
        via.releasePartitions("tm-1", jobId, List.of(), answer::complete);
        return answer.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    }

    /** The job's cleanup learns how each release ended: confirmed, refused, or not answered in time. */
    @Test
    void aReleaseIsAnsweredWithTheTaskManagersConfirmationOrWhyThereIsNone() throws Exception {
        GrpcTaskManagerTransport impatient = new GrpcTaskManagerTransport("s1", 300);
        impatient.connect("tm-1", "127.0.0.1:" + port);
        try {
            assertThat(release(transport, "released")).isNull();
            assertThat(release(transport, "undeletable")).isInstanceOf(io.grpc.StatusRuntimeException.class)
                    .hasMessageContaining("INTERNAL: could not delete the partitions of job undeletable");
            assertThat(release(impatient, "silent")).isInstanceOf(io.grpc.StatusRuntimeException.class)
                    .hasMessageContaining("DEADLINE_EXCEEDED");
            impatient.disconnect("tm-1");
            assertThat(release(impatient, "released")).as("not connected").isNotNull();
        } finally {
            impatient.close();
        }
    }

    @Test
    void aCallFailingWithUnavailableIsASuspicion() throws Exception {
        await().atMost(TIMEOUT).until(() -> transport.isConnected("tm-1"));
        stopTaskManager();
        await().atMost(TIMEOUT).until(() -> !suspicions.isEmpty());
        suspicions.clear();

        transport.cancel("tm-1", AttemptId.newBuilder().setJobId("job").build());

        await().atMost(TIMEOUT).until(() -> suspicions.stream().anyMatch(s -> s.contains("RPC 'cancel job/v0/0#0'")));
    }

    @Test
    void aConnectionThisJobManagerShutDownIsNoSuspicion() throws Exception {
        await().atMost(TIMEOUT).until(() -> transport.isConnected("tm-1"));

        transport.disconnect("tm-1");
        transport.connect("tm-1", "127.0.0.1:" + port);
        transport.close();
        stopTaskManager();

        // Nothing to wait for but time: the watchers of shut-down channels stay quiet.
        await().during(Duration.ofMillis(500)).atMost(TIMEOUT).until(suspicions::isEmpty);
    }

    /**
     * The state is read when gRPC calls back, after the moves in between: a connection that was
     * made and closed before the callback ran reads as CONNECTING to IDLE, or as IDLE to IDLE.
     */
    @Test
    void aClosedConnectionWhoseReadyStateWasNeverSeenIsASuspicion() {
        assertThat(GrpcTaskManagerTransport.isSuspicious(ConnectivityState.CONNECTING, ConnectivityState.IDLE, true))
                .isTrue();
        assertThat(GrpcTaskManagerTransport.isSuspicious(ConnectivityState.IDLE, ConnectivityState.IDLE, true))
                .isTrue();
        assertThat(GrpcTaskManagerTransport.isSuspicious(ConnectivityState.READY, ConnectivityState.IDLE, true))
                .isTrue();
        assertThat(GrpcTaskManagerTransport.isSuspicious(ConnectivityState.CONNECTING,
                ConnectivityState.TRANSIENT_FAILURE, true)).isTrue();
    }

    @Test
    void connectingIsNoSuspicion() {
        assertThat(GrpcTaskManagerTransport.isSuspicious(ConnectivityState.IDLE, ConnectivityState.CONNECTING, true))
                .isFalse();
        assertThat(GrpcTaskManagerTransport.isSuspicious(ConnectivityState.CONNECTING, ConnectivityState.READY, true))
                .isFalse();
        assertThat(GrpcTaskManagerTransport.isSuspicious(ConnectivityState.IDLE, ConnectivityState.IDLE, false))
                .as("read twice, nothing moved").isFalse();
        assertThat(GrpcTaskManagerTransport.isSuspicious(ConnectivityState.TRANSIENT_FAILURE,
                ConnectivityState.TRANSIENT_FAILURE, true)).as("still failing: suspected once already").isFalse();
    }
}
