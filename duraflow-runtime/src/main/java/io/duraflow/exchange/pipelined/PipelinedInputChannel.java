package io.duraflow.exchange.pipelined;

import java.io.IOException;

/**
 * One consumed subpartition, as the {@link PipelinedInputGate} of the consuming task sees it: a
 * local one (same TaskManager, read from the producer's queue) or a remote one (a stream with
 * credit-based flow control). Apart from the listener, every method is called on the consumer's
 * task thread.
 */
public interface PipelinedInputChannel {
    /** Names producer, partition and subpartition, for errors. */
    String describe();

    /**
     * Starts receiving. {@code dataAvailable} is called, from any thread, whenever the channel may
     * have turned from empty to non-empty, or failed.
     */
    void start(Runnable dataAvailable) throws IOException;

    /**
     * The next buffer or event, or null when nothing is there now. A returned buffer belongs to
     * the caller, who recycles it.
     *
     * @throws ProducerFailedException when the producer or the connection to it is gone; at once,
     *     even if earlier data is still queued (that data would be replayed from a checkpoint anyway)
     */
    BufferOrEvent poll() throws IOException;

    /**
     * Alignment holds this channel: the gate reads nothing from it, and a remote channel stops
     * granting credit, so the producer sends at most what was already granted.
     */
    void block();

    /** Alignment ended: a remote channel grants the credit withheld while blocked. */
    void resume();

    /** The consumer is done with the channel (finished, failed or cancelled): frees its buffers. Idempotent. */
    void close();
}
