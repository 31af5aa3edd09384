package io.duraflow.exchange.pipelined;

import static io.duraflow.exchange.pipelined.NetworkTestSupport.decodeAndRecycle;
import static io.duraflow.exchange.pipelined.NetworkTestSupport.writeLong;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.duraflow.config.Configuration;
import io.duraflow.exchange.pipelined.NetworkEnvironment.ChannelLocation;
import io.duraflow.exchange.pipelined.PipelinedInputGate.InputStatus;
import io.duraflow.rpc.RpcServers;
import io.grpc.Server;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Two task managers' network environments on 127.0.0.1: a consumer reading one local and one remote producer. */
@Timeout(60)
class NetworkEnvironmentTest {
    private final Configuration configuration = Configuration.fromMap(Map.of("taskmanager.network.memory", "4 mb",
            "taskmanager.network.partition-request.timeout", "300 ms"));
    private final NetworkEnvironment tm1 = new NetworkEnvironment(configuration, "tm-1", System::nanoTime);
    private final NetworkEnvironment tm2 = new NetworkEnvironment(configuration, "tm-2", System::nanoTime);
    private final Server tm2Server = RpcServers.start("127.0.0.1", 0, "taskmanager.rpc.port", tm2.service());
    private final String tm2Address = "127.0.0.1:" + tm2Server.getPort();

    @AfterEach
    void stop() throws InterruptedException {
        tm1.close();
        tm2.close();
        tm2Server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }

    @Test
    void aGateReadsALocalAndARemoteProducerCreatedAfterIt() throws Exception {
        PipelinedInputGate gate = tm1.createInputGate("consumer 0", List.of(
                new ChannelLocation(0, "tm-1", "unused", "local-p", 0),
                new ChannelLocation(1, "tm-2", tm2Address, "remote-p", 0)));
        gate.start();
        assertThat(tm1.bytesInUse()).as("the remote channel's receive buffers").isEqualTo(4 * 32 * 1024);

        PipelinedResultPartition local = tm1.createPartition("local-p", 1);
        PipelinedResultPartition remote = tm2.createPartition("remote-p", 1);
        writeLong(local, 0, 1);
        writeLong(remote, 0, 2);
        local.finish();
        remote.finish();

        List<String> log = new ArrayList<>();
        PipelinedInputGate.Handler handler = new PipelinedInputGate.Handler() {
            @Override
            public void onBuffer(int input, NetworkBuffer buffer) {
                log.add(input + ":" + decodeAndRecycle(buffer));
            }

            @Override
            public void onEndOfInput(int input) {
                log.add("end " + input);
            }

            @Override
            public void onBarrierAligned(NetworkEvent.CheckpointBarrier barrier) {
            }

            @Override
            public void onCheckpointAborted(long checkpointId, String reason) {
            }
        };
        InputStatus status;
        while ((status = gate.pollNext(handler)) != InputStatus.END_OF_INPUT) {
            if (status == InputStatus.NOTHING_AVAILABLE) {
                gate.availability().get(10, TimeUnit.SECONDS);
            }
        }
        gate.close();

        assertThat(log).containsExactlyInAnyOrder("0:[1]", "1:[2]", "end 0", "end 1");
        assertThat(tm1.bytesInUse()).isZero();
        await().atMost(Duration.ofSeconds(10)).until(() -> tm2.bytesInUse() == 0);
    }

    @Test
    void aLocalPartitionThatNeverComesFailsTheChannelAfterTheRequestTimeout() throws Exception {
        PipelinedInputGate gate = tm1.createInputGate("consumer 0", List.of(
                new ChannelLocation(0, "tm-1", "unused", "never", 3)));
        gate.start();
        gate.availability().get(10, TimeUnit.SECONDS);

        assertThatThrownBy(() -> gate.pollNext(null)).isInstanceOf(ProducerFailedException.class)
                .hasMessageContaining("partition never subpartition 3 (local) was not created on this task manager"
                        + " within 300 ms");
        gate.close();
    }
}
