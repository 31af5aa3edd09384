package io.duraflow.taskmanager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.config.Configuration;
import io.duraflow.ha.LeaderInfo;
import io.duraflow.ha.LeaderRetrieval;
import io.duraflow.rpc.RpcServers;
import io.duraflow.rpc.proto.PartitionLocation;
import io.duraflow.exchange.FrameIterator;
import io.duraflow.exchange.Frames;
import io.duraflow.exchange.blocking.PartitionFileWriter;
import io.duraflow.exchange.PartitionNotFoundException;
import io.grpc.ForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fetches from a TaskExecutor, locally and through its gRPC service on a loopback port (the
 * "remote" TaskManager is the same executor under another id): which failures say "run the
 * producer again" and which do not, and that an abandoned fetch ends the producer's call.
 */
class TaskExecutorFetchTest {
    private static final String JOB = "job";
    private static final String PARTITION = "job-v0-s0-a0-e0";
    private static final int RECORD_BYTES = 256 * 1024;

    @TempDir
    Path dir;

    private TaskExecutor executor;
    private Server server;
    private final CountDownLatch serverCallCancelled = new CountDownLatch(1);

    @BeforeEach
    void start() throws Exception {
        executor = new TaskExecutor(new Configuration(), new NoLeader(), dir);
        ServerInterceptor watchCancels = new ServerInterceptor() {
            @Override
            public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
                    ServerCallHandler<Q, R> next) {
                return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(
                        next.startCall(call, headers)) {
                    @Override
                    public void onCancel() {
                        serverCallCancelled.countDown();
                        super.onCancel();
                    }
                };
            }
        };
        TaskManagerService service = new TaskManagerService(executor);
        server = RpcServers.start("127.0.0.1", 0, "test.port",
                () -> ServerInterceptors.intercept(service, watchCancels));
    }

    @AfterEach
    void stop() throws InterruptedException {
        executor.close();
        server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }

    @Test
    void localAndRemoteFetchesReadTheSameRecords() throws Exception {
        publish(2, 3);

        assertThat(countRecords(local(), 0, 2)).isEqualTo(6);
        assertThat(countRecords(remote(), 0, 2)).isEqualTo(6);
        assertThat(countRecords(remote(), 1, 2)).isEqualTo(3);
    }

    @Test
    void aPartitionThatIsNotThereIsMissingLocallyAndRemotely() {
        for (PartitionLocation location : new PartitionLocation[] {local(), remote()}) {
            assertThatThrownBy(() -> executor.fetch(location, 0, 1, frames -> {}))
                    .isInstanceOfSatisfying(PartitionNotFoundException.class,
                            e -> assertThat(e.partitionId()).isEqualTo(PARTITION));
        }
    }

    @Test
    void aCorruptPartitionIsMissingLocallyAndRemotelySoItsProducerRunsAgain() throws Exception {
        publish(1, 3);
        Path data = dir.resolve("partitions").resolve(JOB).resolve(PARTITION + ".data");
        Files.write(data, new byte[] {1, 2, 3});

        for (PartitionLocation location : new PartitionLocation[] {local(), remote()}) {
            assertThatThrownBy(() -> executor.fetch(location, 0, 1, frames -> {}))
                    .isInstanceOfSatisfying(PartitionNotFoundException.class,
                            e -> assertThat(e).hasMessageContaining("corrupt partition data"));
        }
    }

    @Test
    void aSubpartitionRangeOutsideThePartitionIsAnInvalidArgumentNotAMissingPartition() throws Exception {
        publish(2, 1);

        assertThatThrownBy(() -> executor.fetch(remote(), 1, 3, frames -> {}))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
                    assertThat(e.getStatus().getDescription()).contains("has 2 subpartitions");
                });
        assertThat(countRecords(remote(), 0, 2)).as("the reader is still usable").isEqualTo(2);
    }

    @Test
    void aConsumerThatFailsMidStreamCancelsTheProducersCall() throws Exception {
        // Far more than the flow-control windows hold, so the producer is still sending when the consumer fails.
        publish(1, 64);

        assertThatThrownBy(() -> executor.fetch(remote(), 0, 1, frames -> {
            throw new IllegalStateException("consumer failed");
        })).hasMessage("consumer failed");

        assertThat(serverCallCancelled.await(Duration.ofSeconds(10).toMillis(), TimeUnit.MILLISECONDS))
                .as("the producer's call was cancelled").isTrue();
    }

    /** Writes {@code recordsPerSubpartition} records of {@value #RECORD_BYTES} bytes into each subpartition. */
    private void publish(int subpartitions, int recordsPerSubpartition) throws Exception {
        try (PartitionFileWriter writer = executor.createPartition(JOB, PARTITION, subpartitions)) {
            byte[] record = new byte[RECORD_BYTES];
            for (int sub = 0; sub < subpartitions; sub++) {
                for (int i = 0; i < recordsPerSubpartition; i++) {
                    writer.write(sub, record, 0, record.length);
                }
            }
            writer.finish();
        }
        executor.publish(JOB, PARTITION);
    }

    private int countRecords(PartitionLocation location, int from, int to) throws Exception {
        int[] records = {0};
        Consumer<byte[]> count = chunk -> {
            FrameIterator frames = Frames.iterate(chunk, PARTITION);
            while (frames.next()) {
                var iterator = frames.records();
                while (iterator.hasNext()) {
                    iterator.next();
                    records[0]++;
                }
            }
        };
        executor.fetch(location, from, to, count);
        return records[0];
    }

    private PartitionLocation local() {
        return PartitionLocation.newBuilder().setPartitionId(PARTITION).setTmId(executor.taskManagerId())
                .setTmAddress("127.0.0.1:1").build();
    }

    private PartitionLocation remote() {
        return PartitionLocation.newBuilder().setPartitionId(PARTITION).setTmId("tm-peer")
                .setTmAddress("127.0.0.1:" + server.getPort()).build();
    }

    private static final class NoLeader implements LeaderRetrieval {
        @Override
        public void start(Consumer<LeaderInfo> listener) {}

        @Override
        public LeaderInfo awaitLeader(Duration timeout) {
            return null;
        }

        @Override
        public void close() {}
    }
}
