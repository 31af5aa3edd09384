package io.duraflow.taskmanager.task;

import io.duraflow.api.NonRetriableException;
import io.duraflow.api.types.DataWriter;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.exchange.ResultPartitionWriter;

/**
 * The ends of a chain that write a result partition through a {@link ResultPartitionWriter}, the
 * same in both modes: forward, broadcast, round-robin. Keyed exchanges are the modes' own.
 */
public final class ExchangeOutputs {
    private ExchangeOutputs() {}

    /**
     * A join key, which must not be null (an inner join never matches it, and the key's
     * serializer may not write it). Every attempt would meet the same record, so this fails the
     * job at once.
     */
    public static Object requireKey(Object key, String operator) {
        if (key == null) {
            throw new NonRetriableException("the key selector of a " + operator + " returned null; " + operator
                    + " keys must not be null: filter such records out before the " + operator);
        }
        return key;
    }

    /** Spreads records round-robin, starting at a different subpartition in every task. */
    public static Downstream rebalance(TypeSerializer<Object> recordType, ResultPartitionWriter writer, int subpartitions,
            int subtaskIndex, TaskCounters counters) {
        DataWriter scratch = new DataWriter(256);
        int[] next = {Math.floorMod(subtaskIndex * 31, subpartitions)};
        return record -> {
            scratch.reset();
            recordType.write(record, scratch);
            writer.write(next[0], scratch.buffer(), 0, scratch.position());
            next[0] = next[0] + 1 == subpartitions ? 0 : next[0] + 1;
            counters.recordsOut++;
        };
    }

    /** Writes every record to the subpartition of this task's index: producer i feeds consumer i. */
    public static Downstream forward(TypeSerializer<Object> recordType, ResultPartitionWriter writer, int subtaskIndex,
            TaskCounters counters) {
        DataWriter scratch = new DataWriter(256);
        return record -> {
            scratch.reset();
            recordType.write(record, scratch);
            writer.write(subtaskIndex, scratch.buffer(), 0, scratch.position());
            counters.recordsOut++;
        };
    }

    /** Writes every record to every subpartition. */
    public static Downstream broadcast(TypeSerializer<Object> recordType, ResultPartitionWriter writer,
            TaskCounters counters) {
        DataWriter scratch = new DataWriter(256);
        return record -> {
            scratch.reset();
            recordType.write(record, scratch);
            writer.broadcast(scratch.buffer(), 0, scratch.position());
            counters.recordsOut++;
        };
    }
}
