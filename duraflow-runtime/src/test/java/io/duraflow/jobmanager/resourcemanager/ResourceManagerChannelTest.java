package io.duraflow.jobmanager.resourcemanager;

import io.duraflow.mailbox.ManualMailbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.duraflow.rpc.proto.Ack;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.TaskDeployment;
import io.duraflow.rpc.proto.TaskManagerGatewayGrpc;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A ResourceManager over real gRPC channels: a call that fails because this JobManager shut its
 * own channel down says nothing about the TaskManager (right after a recovery a live
 * TaskManager was declared lost, "it refused a connection (Channel shutdownNow invoked)", and
 * its kept outputs were redone).
 */
class ResourceManagerChannelTest {
    private final ManualMailbox main = new ManualMailbox();
    private final AtomicInteger deploymentsReceived = new AtomicInteger();
    private Server taskManager;
    private String address;
    private ResourceManager resourceManager;

    @BeforeEach
    void start() throws Exception {
        // A TaskManager that takes deployments and never answers them, so that a call is in flight.
        taskManager = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                .addService(new TaskManagerGatewayGrpc.TaskManagerGatewayImplBase() {
                    @Override
                    public void deployTask(TaskDeployment request, StreamObserver<Ack> response) {
                        deploymentsReceived.incrementAndGet();
                    }
                }).build().start();
        address = "127.0.0.1:" + taskManager.getPort();
        resourceManager = new ResourceManager("s1", main, main::now, 60_000, 60_000);
    }

    @AfterEach
    void stop() {
        resourceManager.close();
        taskManager.shutdownNow();
    }

    @Test
    void aCallCutOffBecauseTheTaskManagerRegisteredAgainDoesNotLoseItsNewRegistration() {
        List<String> lost = new CopyOnWriteArrayList<>();
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        resourceManager.addLossListener(lost::add);
        resourceManager.register("tm-1", address, 1);
        resourceManager.deploy("tm-1", deployment(), failures::add);
        await().atMost(Duration.ofSeconds(10)).until(() -> deploymentsReceived.get() == 1);

        // The TaskManager registers again (say, its first registration call timed out on its
        // side): the old registration ends, and with it the channel the deployment went over.
        resourceManager.register("tm-1", address, 1);
        await().atMost(Duration.ofSeconds(10)).pollInSameThread().until(() -> {
            main.runDue();
            return !failures.isEmpty() || lost.size() > 1;
        });
        main.runDue();

        assertThat(lost).as("only the registration that ended is lost").containsExactly("tm-1");
        assertThat(resourceManager.taskManagers()).containsExactly("tm-1");
        assertThat(failures).singleElement().isInstanceOf(TaskManagerTransport.ClosedByUs.class);
    }

    @Test
    void aCallToAnAddressNobodyListensOnStillLosesTheTaskManager() throws Exception {
        List<String> lost = new CopyOnWriteArrayList<>();
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        resourceManager.addLossListener(lost::add);
        resourceManager.register("tm-1", address, 1);
        goAway();

        resourceManager.deploy("tm-1", deployment(), failures::add);
        await().atMost(Duration.ofSeconds(10)).pollInSameThread().until(() -> {
            main.advance(100);  // the probe's pings are 100 ms apart
            return !lost.isEmpty();
        });

        assertThat(lost).containsExactly("tm-1");
        assertThat(failures).as("the loss resets the deployment; it does not fail on its own too").isEmpty();
        assertThat(resourceManager.taskManagers()).isEmpty();
    }

    @Test
    void aTaskManagerWhoseServerGoesAwayIsLostWithoutAnyCallToIt() throws Exception {
        List<String> lost = new CopyOnWriteArrayList<>();
        resourceManager.addLossListener(lost::add);
        resourceManager.register("tm-1", address, 1);

        // Its connection closes: the channel leaves READY. Gone for good before the probe's pings
        // start: a server still shutting down may take a ping's connection and answer it, and a
        // TaskManager that answered is kept.
        goAway();

        await().atMost(Duration.ofSeconds(10)).pollInSameThread().until(() -> {
            main.advance(100);
            return !lost.isEmpty();
        });
        assertThat(lost).containsExactly("tm-1");
        assertThat(main.now()).as("long before the heartbeat timeout").isLessThan(60_000);
    }

    private void goAway() throws InterruptedException {
        assertThat(taskManager.shutdownNow().awaitTermination(10, java.util.concurrent.TimeUnit.SECONDS))
                .as("the TaskManager's server stopped").isTrue();
    }

    private static TaskDeployment deployment() {
        return TaskDeployment.newBuilder().setJmSessionId("s1").setAttempt(AttemptId.newBuilder().setJobId("job"))
                .build();
    }
}
