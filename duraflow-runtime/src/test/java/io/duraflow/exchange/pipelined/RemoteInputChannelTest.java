package io.duraflow.exchange.pipelined;

import static io.duraflow.exchange.pipelined.NetworkTestSupport.decodeAndRecycle;
import static io.duraflow.exchange.pipelined.NetworkTestSupport.settings;
import static io.duraflow.exchange.pipelined.NetworkTestSupport.writeLong;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.duraflow.exchange.pipelined.PipelinedInputGate.InputStatus;
import io.duraflow.rpc.RpcServers;
import io.grpc.Server;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Remote channels over real gRPC on 127.0.0.1: a producer "task manager" and a consumer in one JVM. */
@Timeout(120)
class RemoteInputChannelTest {
    private static final int BUFFER = 1024;
    private static final int RECEIVE_BUFFERS = 4;

    private final NetworkBufferPool producerNetwork = new NetworkBufferPool(64 * BUFFER, BUFFER);
    private final NetworkBufferPool consumerNetwork = new NetworkBufferPool(64 * BUFFER, BUFFER);
    private final PipelinedPartitionRegistry registry = new PipelinedPartitionRegistry(producerNetwork,
            settings(4, 2, Duration.ofHours(1)), System::nanoTime);
    private final ExecutorService sendExecutor = Executors.newFixedThreadPool(2);
    private final Server server = RpcServers.start("127.0.0.1", 0, "taskmanager.rpc.port",
            new PartitionStreamService("tm-producer", registry, Duration.ofMillis(500), sendExecutor));
    private final String address = "127.0.0.1:" + server.getPort();
    private final PartitionStreamConnections connections = new PartitionStreamConnections();
    private final LocalBufferPool gatePool = consumerNetwork.createLocalPool("gate of consumer", RECEIVE_BUFFERS,
            RECEIVE_BUFFERS, 0);
    private final PipelinedInputGateTest.Recorder recorder = new PipelinedInputGateTest.Recorder();

    @AfterEach
    void stop() throws InterruptedException {
        connections.close();
        server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        sendExecutor.shutdownNow();
    }

    private PipelinedInputGate gate(String partitionId) throws Exception {
        RemoteInputChannel channel = new RemoteInputChannel(connections.connection(address), "tm-producer", address,
                partitionId, 0, gatePool, RECEIVE_BUFFERS, "consumer 0");
        PipelinedInputGate gate = new PipelinedInputGate(List.of(new PipelinedInputGate.Channel(0, channel)));
        gate.start();
        return gate;
    }

    /** Polls (waiting on the gate's availability, never spinning) until {@code until} holds or the input ends. */
    private InputStatus pollUntil(PipelinedInputGate gate, java.util.function.BooleanSupplier until) throws Exception {
        while (true) {
            InputStatus status = gate.pollNext(recorder);
            if (status == InputStatus.END_OF_INPUT || until.getAsBoolean()) {
                return status;
            }
            if (status == InputStatus.NOTHING_AVAILABLE) {
                gate.availability().get(30, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void recordsAndEventsArriveInOrderAndTheEndReleasesBothSides() throws Exception {
        PipelinedInputGate gate = gate("p-1");
        PipelinedResultPartition partition = registry.create("p-1", 1);
        for (long i = 0; i < 1000; i++) {
            writeLong(partition, 0, i);
            if (i == 500) {
                partition.broadcastEvent(new NetworkEvent.CheckpointBarrier(7, 123, NetworkEvent.CheckpointKind.SAVEPOINT));
            }
            if (!partition.isAvailable()) {
                pollUntil(gate, partition::isAvailable);
            }
        }
        partition.finish();

        assertThat(pollUntil(gate, () -> false)).isEqualTo(InputStatus.END_OF_INPUT);
        assertThat(recorder.values).hasSize(1000);
        for (int i = 0; i < 1000; i++) {
            assertThat(recorder.values.get(i)).isEqualTo(i);
        }
        assertThat(recorder.log).contains("aligned 7").endsWith("end of input 0");
        int barrierAt = recorder.log.indexOf("aligned 7");
        assertThat(recorder.log.subList(0, barrierAt).stream().mapToInt(line -> line.split(",").length).sum())
                .as("records before the barrier").isEqualTo(501);
        await().atMost(Duration.ofSeconds(10)).until(() -> producerNetwork.bytesInUse() == 0 && registry.size() == 0);
        assertThat(consumerNetwork.bytesInUse()).isZero();
    }

    @Test
    void aSlowConsumerBoundsTheProducersMemoryAndTheProducerNeverExceedsItsCredit() throws Exception {
        PipelinedInputGate gate = gate("p-slow");
        PipelinedResultPartition partition = registry.create("p-slow", 1);
        long records = 256 * 1024; // 2.3 MB of records through a producer share of 4 + 2 buffers of 1 KiB
        AtomicInteger maxProducerBuffers = new AtomicInteger();
        AtomicInteger backpressured = new AtomicInteger();
        AtomicReference<CompletableFuture<Void>> producerWaiting = new AtomicReference<>(new CompletableFuture<>());
        AtomicReference<Throwable> producerFailure = new AtomicReference<>();
        java.util.concurrent.atomic.AtomicBoolean producerDone = new java.util.concurrent.atomic.AtomicBoolean();
        Thread producer = new Thread(() -> {
            try {
                for (long i = 0; i < records; i++) {
                    if (!partition.isAvailable()) {
                        // What a task does: wait on the availability future instead of writing into user code's path.
                        backpressured.incrementAndGet();
                        CompletableFuture<Void> available = partition.availability();
                        producerWaiting.get().complete(null);
                        available.get(30, TimeUnit.SECONDS);
                    }
                    writeLong(partition, 0, i);
                    maxProducerBuffers.accumulateAndGet(partition.buffersInUse(), Math::max);
                }
                partition.finish();
            } catch (Throwable t) {
                producerFailure.set(t);
            } finally {
                producerDone.set(true); // before the signal, so the consumer never waits for another one
                producerWaiting.get().complete(null);
            }
        }, "producer");
        producer.start();

        long received = 0;
        int maxReceiveBuffers = 0;
        List<Long> gaps = new ArrayList<>();
        InputStatus status = InputStatus.MORE_AVAILABLE;
        while (status != InputStatus.END_OF_INPUT) {
            // Slow consumer: take one element only once the producer is held up by backpressure (or done).
            producerWaiting.get().get(30, TimeUnit.SECONDS);
            producerWaiting.set(new CompletableFuture<>());
            if (producerDone.get()) {
                producerWaiting.get().complete(null);
            }
            maxReceiveBuffers = Math.max(maxReceiveBuffers, gatePool.buffersInUse());
            status = gate.pollNext(recorder);
            if (status == InputStatus.NOTHING_AVAILABLE) {
                gate.availability().get(30, TimeUnit.SECONDS);
                producerWaiting.get().complete(null); // data is on its way; look again
            }
            for (long value : recorder.values) {
                if (value != received) {
                    gaps.add(value);
                }
                received++;
            }
            recorder.values.clear();
        }
        producer.join();

        assertThat(producerFailure.get()).isNull();
        assertThat(gaps).as("records out of order or lost").isEmpty();
        assertThat(received).isEqualTo(records);
        assertThat(records * 9).as("far more than the network memory").isGreaterThan(30 * producerNetwork.totalBytes());
        assertThat(backpressured.get()).as("the producer was held up by the slow consumer").isGreaterThan(100);
        assertThat(maxProducerBuffers.get()).as("producer memory stays within its share plus overdraft")
                .isLessThanOrEqualTo(4 + 2);
        assertThat(maxReceiveBuffers).as("the consumer holds at most its credit").isEqualTo(RECEIVE_BUFFERS);
    }

    @Test
    void aProducerTaskManagerThatDiesFailsTheConsumerAtOnceNamingIt() throws Exception {
        PipelinedInputGate gate = gate("p-dies");
        PipelinedResultPartition partition = registry.create("p-dies", 1);
        writeLong(partition, 0, 1);
        partition.flushAll();
        assertThat(pollUntil(gate, () -> !recorder.values.isEmpty())).isEqualTo(InputStatus.MORE_AVAILABLE);
        CompletableFuture<Void> availability = gate.availability();
        assertThat(gate.pollNext(recorder)).isEqualTo(InputStatus.NOTHING_AVAILABLE);
        availability = gate.availability();

        long killedAt = System.nanoTime();
        server.shutdownNow(); // the abrupt end a SIGKILL gives: connections closed, no goodbye

        availability.get(5, TimeUnit.SECONDS);
        long noticedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
        assertThatThrownBy(() -> gate.pollNext(recorder)).isInstanceOf(ProducerFailedException.class)
                .hasMessageContaining("partition p-dies subpartition 0 from task manager tm-producer at " + address)
                .hasMessageContaining("restarts from its latest checkpoint")
                .satisfies(e -> assertThat(io.duraflow.rpc.PeerUnreachableException.find(e))
                        .as("names the TaskManager for the JobManager to probe: %s", e.getMessage()).isNotNull()
                        .extracting(u -> u.taskManagerId() + " " + u.address())
                        .isEqualTo("tm-producer " + address));
        assertThat(noticedMs).as("noticed without waiting for a heartbeat timeout").isLessThan(5000);
    }

    @Test
    void aConsumerThatAsksBeforeItsProducerExistsIsServedOnceItDoesAndAMissingOneIsNamed() throws Exception {
        PipelinedInputGate early = gate("p-late");
        PipelinedResultPartition partition = registry.create("p-late", 1);
        writeLong(partition, 0, 42);
        partition.finish();
        assertThat(pollUntil(early, () -> false)).isEqualTo(InputStatus.END_OF_INPUT);
        assertThat(recorder.values).containsExactly(42L);

        LocalBufferPool otherPool = consumerNetwork.createLocalPool("other gate", 1, 1, 0);
        RemoteInputChannel missing = new RemoteInputChannel(connections.connection(address), "tm-producer", address,
                "p-never", 0, otherPool, 1, "consumer 1");
        PipelinedInputGate gate = new PipelinedInputGate(List.of(new PipelinedInputGate.Channel(0, missing)));
        gate.start();
        gate.availability().get(10, TimeUnit.SECONDS);
        assertThatThrownBy(() -> gate.pollNext(recorder)).isInstanceOf(ProducerFailedException.class)
                .hasMessageContaining("partition p-never is not produced on task manager tm-producer (waited 500 ms)");
        gate.close();
        assertThat(otherPool.buffersInUse()).isZero();
    }

    @Test
    void aConsumerThatClosesEarlyFreesTheProducersQueue() throws Exception {
        PipelinedInputGate gate = gate("p-cancel");
        PipelinedResultPartition partition = registry.create("p-cancel", 1);
        int perBuffer = BUFFER / 9;
        for (int i = 0; i < 5 * perBuffer + 1; i++) {
            writeLong(partition, 0, i); // six buffers: the share of 4 plus the overdraft of 2
        }
        partition.flushAll();
        // Four go out against the four credits (and are recycled at the producer); two wait for credit.
        await().atMost(Duration.ofSeconds(10)).until(() -> partition.buffersInUse() == 2);

        gate.close();
        assertThat(gatePool.buffersInUse()).isZero();
        await().atMost(Duration.ofSeconds(10)).until(() -> partition.buffersInUse() == 0);
        partition.finish();
        await().atMost(Duration.ofSeconds(10)).until(() -> registry.size() == 0);
        assertThat(producerNetwork.bytesInUse()).isZero();
    }

    @Test
    void creditRecycledWhileAlignmentHoldsTheChannelIsWithheldUntilRelease() throws Exception {
        NetworkTestSupport.ManualNanoClock clock = new NetworkTestSupport.ManualNanoClock();
        PipelinedResultPartition remote = registry.create("p-aligned", 1);
        PipelinedResultPartition local = new PipelinedResultPartition("p-local", 1, consumerNetwork,
                settings(4, 0, Duration.ofHours(1)), clock, p -> { });
        RemoteInputChannel remoteChannel = new RemoteInputChannel(connections.connection(address), "tm-producer",
                address, "p-aligned", 0, gatePool, RECEIVE_BUFFERS, "consumer 0");
        PipelinedInputGate gate = new PipelinedInputGate(List.of(new PipelinedInputGate.Channel(0, remoteChannel),
                new PipelinedInputGate.Channel(0, new LocalInputChannel(local, 0))));
        gate.start();
        // Remote: two buffers, barrier 1, three buffers. Four credits: four buffers go out, the fifth waits.
        for (int i = 0; i < 5; i++) {
            if (i == 2) {
                remote.broadcastEvent(new NetworkEvent.CheckpointBarrier(1, 1, NetworkEvent.CheckpointKind.CHECKPOINT));
            }
            writeLong(remote, 0, i);
            remote.flushAll();
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> remote.buffersInUse() == 1);

        // The task keeps the two buffers before the barrier until the barrier holds the channel.
        List<NetworkBuffer> kept = new ArrayList<>();
        PipelinedInputGate.Handler keeping = new PipelinedInputGate.Handler() {
            @Override
            public void onBuffer(int input, NetworkBuffer buffer) {
                kept.add(buffer);
            }

            @Override
            public void onEndOfInput(int input) {
            }

            @Override
            public void onBarrierAligned(NetworkEvent.CheckpointBarrier barrier) {
                recorder.onBarrierAligned(barrier);
            }

            @Override
            public void onCheckpointAborted(long checkpointId, String reason) {
            }
        };
        while (!gate.isHeld(0)) {
            if (gate.pollNext(keeping) == InputStatus.NOTHING_AVAILABLE) {
                gate.availability().get(10, TimeUnit.SECONDS);
            }
        }
        assertThat(kept).hasSize(2);
        kept.forEach(NetworkBuffer::recycle);
        assertThat(remoteChannel.withheldCredit()).as("no credit for a held channel").isEqualTo(2);
        assertThat(remote.buffersInUse()).isEqualTo(1);

        // The local channel's barrier completes the alignment: the withheld credit goes out, the fifth buffer follows.
        local.broadcastEvent(new NetworkEvent.CheckpointBarrier(1, 1, NetworkEvent.CheckpointKind.CHECKPOINT));
        assertThat(pollUntil(gate, () -> recorder.log.contains("aligned 1"))).isEqualTo(InputStatus.MORE_AVAILABLE);
        assertThat(remoteChannel.withheldCredit()).isZero();
        await().atMost(Duration.ofSeconds(10)).until(() -> remote.buffersInUse() == 0);
        assertThat(pollUntil(gate, () -> recorder.values.size() == 3)).isEqualTo(InputStatus.MORE_AVAILABLE);
        assertThat(recorder.values).containsExactly(2L, 3L, 4L);
        gate.close();
    }

    @Test
    void aProducerThatSendsMoreThanItsCreditFailsTheChannel() throws Exception {
        // A producer that ignores credit (a bug, or another version): five buffers against four credits.
        Server rogue = RpcServers.start("127.0.0.1", 0, "taskmanager.rpc.port",
                new io.duraflow.rpc.proto.PartitionStreamsGrpc.PartitionStreamsImplBase() {
                    @Override
                    public io.grpc.stub.StreamObserver<io.duraflow.rpc.proto.StreamRequest> stream(
                            io.grpc.stub.StreamObserver<io.duraflow.rpc.proto.StreamBuffer> response) {
                        return new io.grpc.stub.StreamObserver<>() {
                            @Override
                            public void onNext(io.duraflow.rpc.proto.StreamRequest request) {
                                if (request.hasOpen()) {
                                    for (int i = 0; i <= request.getOpen().getInitialCredit(); i++) {
                                        response.onNext(io.duraflow.rpc.proto.StreamBuffer.newBuilder()
                                                .setData(com.google.protobuf.ByteString.copyFrom(new byte[] {8, 0, 0, 0,
                                                        0, 0, 0, 0, (byte) i}))
                                                .build());
                                    }
                                }
                            }

                            @Override
                            public void onError(Throwable t) {
                            }

                            @Override
                            public void onCompleted() {
                            }
                        };
                    }
                });
        try {
            String rogueAddress = "127.0.0.1:" + rogue.getPort();
            PipelinedInputGate gate = new PipelinedInputGate(List.of(new PipelinedInputGate.Channel(0,
                    new RemoteInputChannel(connections.connection(rogueAddress), "tm-rogue", rogueAddress, "p-x", 0,
                            gatePool, RECEIVE_BUFFERS, "consumer 0"))));
            gate.start();
            // The task does not read, so no credit is granted back: the fifth buffer is over the limit.
            await().atMost(Duration.ofSeconds(10)).until(() -> {
                try {
                    return gate.pollNext(new PipelinedInputGate.Handler() {
                        @Override
                        public void onBuffer(int input, NetworkBuffer buffer) {
                                            // kept: its credit is not given back
                        }

                        @Override
                        public void onEndOfInput(int input) {
                        }

                        @Override
                        public void onBarrierAligned(NetworkEvent.CheckpointBarrier barrier) {
                        }

                        @Override
                        public void onCheckpointAborted(long checkpointId, String reason) {
                        }
                    }) == null;
                } catch (ProducerFailedException e) {
                    assertThat(e).hasMessageContaining("task manager tm-rogue sent more data buffers than 4 credits");
                    return true;
                }
            });
        } finally {
            rogue.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }
}
