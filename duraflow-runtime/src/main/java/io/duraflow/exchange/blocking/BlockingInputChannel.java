package io.duraflow.exchange.blocking;

import io.duraflow.exchange.PartitionNotFoundException;

/** One source of buffers for a task's input: today a blocking partition (read after its producer finished). */
public interface BlockingInputChannel {
    /** Receives buffers on the task thread. */
    @FunctionalInterface
    interface BufferConsumer {
        void accept(byte[] frames) throws Exception;
    }

    String partitionId();

    /**
     * Delivers every buffer of the channel in order, then returns. A blocking channel is
     * push-driven by the fetch protocol (a local file read or a gRPC stream), so the consumer
     * gets control, and runs the task's mails, after each buffer; a pipelined channel will be
     * polled one buffer at a time instead.
     *
     * @throws PartitionNotFoundException when the partition or its TaskManager is gone
     */
    void readAll(BufferConsumer consumer) throws Exception;
}
