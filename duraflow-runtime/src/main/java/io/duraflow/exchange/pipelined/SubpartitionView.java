package io.duraflow.exchange.pipelined;

/**
 * The reading end of a {@link PipelinedSubpartition}, for one reader: a local input channel or the
 * network sender serving a remote one.
 */
public final class SubpartitionView {
    private final PipelinedSubpartition subpartition;

    SubpartitionView(PipelinedSubpartition subpartition) {
        this.subpartition = subpartition;
    }

    /**
     * The next buffer or event, or null when nothing is queued now (the listener given at creation
     * fires when that changes).
     *
     * @throws ProducerFailedException when the producer aborted
     */
    public BufferOrEvent poll() throws ProducerFailedException {
        return subpartition.poll(true);
    }

    /** The next element if it is an event; null when it is a buffer or nothing is queued. */
    public BufferOrEvent pollEvent() throws ProducerFailedException {
        return subpartition.poll(false);
    }

    /** Whether the next element is a data buffer (which needs credit to be sent). */
    public boolean isNextBuffer() {
        return subpartition.isNextBuffer();
    }

    /** Data buffers queued: what a remote sender reports as backlog. */
    public int backlog() {
        return subpartition.queuedBuffers();
    }

    /** The reader is gone; queued buffers go back to the producer's pool. Idempotent. */
    public void release() {
        subpartition.release();
    }
}
