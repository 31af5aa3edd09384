package io.duraflow.exchange.pipelined;

import io.duraflow.exchange.pipelined.PipelinedInputGate.InputStatus;
import io.duraflow.rpc.RpcServers;
import io.duraflow.exchange.Frames;
import io.duraflow.exchange.RecordIterator;
import io.grpc.Server;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * Micro-benchmark, not a test: records/s of 16-byte records from a producer thread through a
 * local channel and through a remote channel (gRPC on 127.0.0.1) to a consumer thread that decodes
 * every record, with the default buffer size (32 KiB) and credit (4 buffers). Run with
 * {@code java -cp <test classpath> io.duraflow.exchange.pipelined.NetworkThroughputBenchmark [records]}.
 */
public final class NetworkThroughputBenchmark {
    private static final int BUFFER = 32 * 1024;
    private static final byte[] RECORD = new byte[16];

    public static void main(String[] args) throws Exception {
        long records = args.length > 0 ? Long.parseLong(args[0]) : 50_000_000L;
        for (int round = 0; round < 3; round++) {
            report("local ", records, local(records));
            report("remote", records, remote(records));
        }
        System.exit(0);
    }

    private static void report(String kind, long records, long nanos) {
        double seconds = nanos / 1e9;
        System.out.printf("%s channel: %,d records of 16 bytes in %.2f s: %,.0f records/s (%.0f MB/s of records)%n",
                kind, records, seconds, records / seconds, records * 17 / seconds / 1e6);
    }

    private static PipelinedPartitionSettings settings() {
        return new PipelinedPartitionSettings(4, 5, Duration.ofMillis(100));
    }

    private static long local(long records) throws Exception {
        NetworkBufferPool network = new NetworkBufferPool(64L << 20, BUFFER);
        PipelinedResultPartition partition = new PipelinedResultPartition("p", 1, network, settings(), System::nanoTime,
                p -> { });
        PipelinedInputGate gate = new PipelinedInputGate(List.of(
                new PipelinedInputGate.Channel(0, new LocalInputChannel(partition, 0))));
        gate.start();
        return run(records, partition, gate);
    }

    private static long remote(long records) throws Exception {
        NetworkBufferPool producerNetwork = new NetworkBufferPool(64L << 20, BUFFER);
        NetworkBufferPool consumerNetwork = new NetworkBufferPool(64L << 20, BUFFER);
        PipelinedPartitionRegistry registry = new PipelinedPartitionRegistry(producerNetwork, settings(), System::nanoTime);
        ExecutorService sender = Executors.newFixedThreadPool(2);
        Server server = RpcServers.start("127.0.0.1", 0, "taskmanager.rpc.port",
                new PartitionStreamService("tm-1", registry, Duration.ofSeconds(10), sender));
        try (PartitionStreamConnections connections = new PartitionStreamConnections()) {
            String address = "127.0.0.1:" + server.getPort();
            PipelinedResultPartition partition = registry.create("p", 1);
            LocalBufferPool gatePool = consumerNetwork.createLocalPool("gate", 4, 4, 0);
            PipelinedInputGate gate = new PipelinedInputGate(List.of(new PipelinedInputGate.Channel(0,
                    new RemoteInputChannel(connections.connection(address), "tm-1", address, "p", 0, gatePool, 4, "c"))));
            gate.start();
            return run(records, partition, gate);
        } finally {
            server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            sender.shutdownNow();
        }
    }

    private static long run(long records, PipelinedResultPartition partition, PipelinedInputGate gate) throws Exception {
        long[] received = {0};
        PipelinedInputGate.Handler counting = new PipelinedInputGate.Handler() {
            @Override
            public void onBuffer(int input, NetworkBuffer buffer) {
                RecordIterator iterator = Frames.records(buffer.memory(), 0, buffer.size(), "bench");
                while (iterator.hasNext()) {
                    iterator.next();
                    received[0]++;
                }
                buffer.recycle();
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
        };
        Throwable[] failure = {null};
        Thread producer = new Thread(() -> {
            try {
                for (long i = 0; i < records; i++) {
                    if ((i & 1023) == 0 && !partition.isAvailable()) {
                        partition.availability().get();
                    }
                    partition.write(0, RECORD, 0, RECORD.length);
                }
                partition.finish();
            } catch (Throwable t) {
                failure[0] = t;
            }
        }, "producer");
        long start = System.nanoTime();
        producer.start();
        while (true) {
            InputStatus status = gate.pollNext(counting);
            if (status == InputStatus.END_OF_INPUT) {
                break;
            }
            if (status == InputStatus.NOTHING_AVAILABLE) {
                gate.availability().get();
            }
        }
        long nanos = System.nanoTime() - start;
        producer.join();
        gate.close();
        if (failure[0] != null || received[0] != records) {
            throw new IllegalStateException("received " + received[0] + " of " + records, failure[0]);
        }
        return nanos;
    }
}
