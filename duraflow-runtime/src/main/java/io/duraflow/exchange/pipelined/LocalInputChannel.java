package io.duraflow.exchange.pipelined;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A subpartition of a producer on the same TaskManager, read straight from its queue: the
 * consumer gets the producer's buffer objects, no copy, and recycling one frees it in the
 * producer's pool. No credit is needed: the producer is bounded by its own share.
 *
 * <p>The producer may create its partition after the consumer started (tasks of a streaming job
 * are deployed together): the channel attaches when the partition appears, and fails if it does
 * not within the partition request timeout.
 */
public final class LocalInputChannel implements PipelinedInputChannel {
    private final CompletableFuture<PipelinedResultPartition> partition;
    private final String partitionId;
    private final int subpartition;
    private final Duration requestTimeout;
    private final String description;
    /** Guarded by this: set once the partition is there. */
    private SubpartitionView view;
    private String failure;
    private boolean started;
    private boolean closed;

    /** A channel of a partition that exists already. */
    public LocalInputChannel(PipelinedResultPartition partition, int subpartition) {
        this(CompletableFuture.completedFuture(partition), partition.partitionId(), subpartition, Duration.ofDays(1));
    }

    /** A channel of a partition its producer will create, as {@link PipelinedPartitionRegistry#lookup} returns it. */
    public LocalInputChannel(CompletableFuture<PipelinedResultPartition> partition, String partitionId,
            int subpartition, Duration requestTimeout) {
        this.partition = Objects.requireNonNull(partition, "partition");
        this.partitionId = partitionId;
        this.subpartition = subpartition;
        this.requestTimeout = requestTimeout;
        this.description = "partition " + partitionId + " subpartition " + subpartition + " (local)";
    }

    @Override
    public String describe() {
        return description;
    }

    @Override
    public void start(Runnable dataAvailable) {
        synchronized (this) {
            if (started) {
                throw new IllegalStateException(description + " was started already");
            }
            started = true;
        }
        partition.copy().orTimeout(requestTimeout.toMillis(), TimeUnit.MILLISECONDS).whenComplete((produced, error) -> {
            if (error != null) {
                synchronized (this) {
                    failure = error instanceof TimeoutException
                            ? description + " was not created on this task manager within " + requestTimeout.toMillis()
                                    + " ms; its producer failed or was never deployed"
                            : description + " cannot be read: " + error.getMessage();
                }
                dataAvailable.run();
                return;
            }
            SubpartitionView created = produced.createView(subpartition, dataAvailable);
            boolean release;
            synchronized (this) {
                release = closed;
                view = created;
            }
            if (release) {
                created.release();
            }
        });
    }

    @Override
    public BufferOrEvent poll() throws ProducerFailedException {
        SubpartitionView current;
        synchronized (this) {
            if (failure != null) {
                throw new ProducerFailedException(failure);
            }
            current = view;
        }
        return current == null ? null : current.poll();
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
        SubpartitionView current;
        synchronized (this) {
            closed = true;
            current = view;
        }
        if (current != null) {
            current.release();
        }
    }
}
