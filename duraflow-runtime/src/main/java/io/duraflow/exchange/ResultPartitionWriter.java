package io.duraflow.exchange;



import java.io.Closeable;
import java.io.IOException;

/**
 * What a task writes one output exchange through: serialized records into subpartitions (one
 * per consumer key group range), then {@link #finish()} on success or {@link #abort()} on
 * failure. Used by the task thread only.
 *
 * <p>{@link io.duraflow.exchange.blocking.PartitionFileWriter} is the blocking implementation (a complete partition in files,
 * read after the producer finished); a pipelined one (records handed to running consumers with
 * flow control) comes with streaming.
 */
public interface ResultPartitionWriter extends Closeable {
    int subpartitionCount();

    /** Appends one serialized record, {@code record[offset, offset + length)}, to a subpartition. */
    void write(int subpartition, byte[] record, int offset, int length) throws IOException;

    /** Appends one serialized record to every subpartition. */
    default void broadcast(byte[] record, int offset, int length) throws IOException {
        for (int subpartition = 0, count = subpartitionCount(); subpartition < count; subpartition++) {
            write(subpartition, record, offset, length);
        }
    }

    /**
     * Makes everything written available to consumers and returns per-subpartition sizes. If it
     * throws, the writer has aborted itself.
     */
    PartitionSummary finish() throws IOException;

    /** Drops the partition (the task failed or was cancelled); idempotent, never throws. */
    void abort();

    /** Aborts unless {@link #finish()} succeeded, so no failure path leaves half a partition. */
    @Override
    void close();
}
