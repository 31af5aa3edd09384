package io.duraflow.exchange.blocking;

import io.duraflow.exchange.InputGate;

import io.duraflow.rpc.proto.PartitionLocation;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The gate of a batch task: its inputs' blocking partitions, read one channel after the other,
 * input 0 first; the edges of one input index (a union's) are read as one input. Each {@link #processNext} reads one whole channel (see {@link
 * BlockingInputChannel#readAll}) or ends one input.
 */
public final class BlockingInputGate implements InputGate {
    /** One input edge: its index at the head operator and its channels. */
    public record Input(int inputIndex, List<BlockingInputChannel> channels) {
        public Input {
            channels = List.copyOf(channels);
        }
    }

    private final List<Input> inputs;
    private int currentInput;
    private int nextChannel;

    /** Edges with one input index (the inputs of a union) are one input: it ends after all their channels. */
    public BlockingInputGate(List<Input> inputs) {
        Map<Integer, List<BlockingInputChannel>> channelsByIndex = new TreeMap<>();
        for (Input input : inputs) {
            channelsByIndex.computeIfAbsent(input.inputIndex(), index -> new ArrayList<>()).addAll(input.channels());
        }
        List<Input> merged = new ArrayList<>();
        channelsByIndex.forEach((index, channels) -> merged.add(new Input(index, channels)));
        this.inputs = List.copyOf(merged);
    }

    @Override
    public boolean processNext(Handler handler) throws Exception {
        if (currentInput == inputs.size()) {
            return false;
        }
        Input input = inputs.get(currentInput);
        if (nextChannel < input.channels().size()) {
            BlockingInputChannel channel = input.channels().get(nextChannel++);
            channel.readAll(frames -> handler.buffer(input.inputIndex(), channel.partitionId(), frames));
        } else {
            handler.endOfInput(input.inputIndex());
            currentInput++;
            nextChannel = 0;
        }
        return currentInput < inputs.size();
    }

    /** A producer's partition, read through the TaskManager's fetch (local files or a peer's stream). */
    public static BlockingInputChannel blockingPartition(PartitionFetcher environment, PartitionLocation location,
            int fromSubpartition, int toSubpartition) {
        return new BlockingInputChannel() {
            @Override
            public String partitionId() {
                return location.getPartitionId();
            }

            @Override
            public void readAll(BufferConsumer consumer) throws Exception {
                try {
                    environment.fetch(location, fromSubpartition, toSubpartition, frames -> {
                        try {
                            consumer.accept(frames);
                        } catch (Exception e) {
                            throw new ConsumerException(e);
                        }
                    });
                } catch (ConsumerException e) {
                    // The fetch takes an unchecked consumer: give the task the consumer's own exception.
                    throw (Exception) e.getCause();
                }
            }
        };
    }

    /** Carries a consumer's checked exception through the fetch's Consumer. */
    private static final class ConsumerException extends RuntimeException {
        ConsumerException(Exception cause) {
            super(cause);
        }
    }
}
