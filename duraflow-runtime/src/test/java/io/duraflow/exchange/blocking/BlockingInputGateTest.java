package io.duraflow.exchange.blocking;

import io.duraflow.exchange.InputGate;
import io.duraflow.taskmanager.task.OperatorChain;
import io.duraflow.taskmanager.task.TaskEnvironment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.rpc.proto.PartitionLocation;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

class BlockingInputGateTest {
    private final List<String> log = new ArrayList<>();

    private final InputGate.Handler handler = new InputGate.Handler() {
        @Override
        public void buffer(int input, String partitionId, byte[] frames) {
            log.add("buffer " + input + " " + partitionId + " " + frames[0]);
        }

        @Override
        public void endOfInput(int input) {
            log.add("end " + input);
        }
    };

    private BlockingInputChannel channel(String partitionId, int buffers) {
        return new BlockingInputChannel() {
            @Override
            public String partitionId() {
                return partitionId;
            }

            @Override
            public void readAll(BufferConsumer consumer) throws Exception {
                for (int i = 0; i < buffers; i++) {
                    consumer.accept(new byte[] {(byte) i});
                }
            }
        };
    }

    @Test
    void readsOneChannelPerCallAndEndsEachInputAfterItsChannelsInInputOrder() throws Exception {
        BlockingInputGate gate = new BlockingInputGate(List.of(
                new BlockingInputGate.Input(0, List.of(channel("a", 2), channel("b", 1))),
                new BlockingInputGate.Input(1, List.of())));
        List<Boolean> more = new ArrayList<>();
        boolean next;
        do {
            next = gate.processNext(handler);
            more.add(next);
            log.add("|");
        } while (next);
        assertThat(log).containsExactly("buffer 0 a 0", "buffer 0 a 1", "|", "buffer 0 b 0", "|", "end 0", "|",
                "end 1", "|");
        assertThat(more).containsExactly(true, true, true, false);
    }

    @Test
    void theEdgesOfOneInputIndexAreOneInputThatEndsOnceAfterAllTheirChannels() throws Exception {
        // A join whose left input is a union of two edges, listed apart from each other.
        BlockingInputGate gate = new BlockingInputGate(List.of(
                new BlockingInputGate.Input(1, List.of(channel("right", 1))),
                new BlockingInputGate.Input(0, List.of(channel("a", 1))),
                new BlockingInputGate.Input(0, List.of(channel("b", 1)))));
        while (gate.processNext(handler)) {
            // every call reads one channel or ends one input
        }
        assertThat(log).containsExactly("buffer 0 a 0", "buffer 0 b 0", "end 0", "buffer 1 right 0", "end 1");
    }

    @Test
    void theBlockingPartitionChannelPassesFetchedBuffersAndTheConsumersOwnException() throws Exception {
        java.io.IOException cause = new java.io.IOException("spill disk full");
        TaskEnvironment environment = new FetchOnlyEnvironment(frames -> {
            frames.accept(new byte[] {1});
            frames.accept(new byte[] {2});
        });
        BlockingInputChannel channel = BlockingInputGate.blockingPartition(environment,
                PartitionLocation.newBuilder().setPartitionId("p").build(), 0, 1);
        List<Byte> seen = new ArrayList<>();
        channel.readAll(frames -> seen.add(frames[0]));
        assertThat(seen).containsExactly((byte) 1, (byte) 2);
        assertThatThrownBy(() -> channel.readAll(frames -> {
            throw cause;
        })).isSameAs(cause);
    }

    /** Serves one fetch script; nothing else. */
    private record FetchOnlyEnvironment(Consumer<Consumer<byte[]>> script) implements TaskEnvironment {
        @Override
        public void fetch(PartitionLocation location, int from, int to, Consumer<byte[]> frames) {
            script.accept(frames);
        }

        @Override
        public String taskManagerId() {
            throw new UnsupportedOperationException();
        }

        @Override
        public OperatorChain.Settings settings() {
            throw new UnsupportedOperationException();
        }

        @Override
        public io.duraflow.exchange.ResultPartitionWriter createPartition(String jobId, String partitionId,
                int subpartitions) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void publish(String jobId, String partitionId) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void sendOperatorEvent(io.duraflow.rpc.proto.OperatorEventFromTask event) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void releaseSlot(io.duraflow.rpc.proto.AttemptId attempt) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void reportState(io.duraflow.rpc.proto.TaskStateUpdate update) {
            throw new UnsupportedOperationException();
        }
    }
}
