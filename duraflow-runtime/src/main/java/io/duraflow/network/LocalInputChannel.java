package io.duraflow.network;

import java.util.Objects;

/**
 * A subpartition of a producer on the same TaskManager, read straight from its queue: the
 * consumer gets the producer's buffer objects, no copy, and recycling one frees it in the
 * producer's pool. No credit is needed: the producer is bounded by its own share.
 */
public final class LocalInputChannel implements InputChannel {
    private final PipelinedResultPartition partition;
    private final int subpartition;
    private final String description;
    private SubpartitionView view;

    public LocalInputChannel(PipelinedResultPartition partition, int subpartition) {
        this.partition = Objects.requireNonNull(partition, "partition");
        this.subpartition = subpartition;
        this.description = "partition " + partition.partitionId() + " subpartition " + subpartition
                + " (local)";
    }

    @Override
    public String describe() {
        return description;
    }

    @Override
    public void start(Runnable dataAvailable) {
        if (view != null) {
            throw new IllegalStateException(description + " was started already");
        }
        view = partition.createView(subpartition, dataAvailable);
    }

    @Override
    public BufferOrEvent poll() throws ProducerFailedException {
        return view.poll();
    }

    @Override
    public void block() {
        // Nothing to withhold: the gate does not read a blocked channel, which backpressures its producer.
    }

    @Override
    public void resume() {
    }

    @Override
    public void close() {
        if (view != null) {
            view.release();
        }
    }
}
