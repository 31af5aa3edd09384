package io.duraflow.taskmanager.task;

import io.duraflow.api.functions.KeySelector;
import io.duraflow.api.types.DataWriter;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.plan.KeyedAggregation;
import io.duraflow.shuffle.PartitionFileWriter;
import io.duraflow.util.Murmur;
import java.util.HashMap;
import java.util.Map;

/**
 * The ends of a chain that write a blocking result partition. A record's subpartition is its
 * key group (hash of the serialized key modulo the subpartition count), or round-robin.
 */
final class ExchangeOutputs {
    private ExchangeOutputs() {}

    /** Writes each record to the subpartition of its key. */
    static Downstream hash(KeySelector<Object, Object> keySelector, TypeSerializer<Object> keyType,
            TypeSerializer<Object> recordType, PartitionFileWriter writer, int subpartitions, TaskCounters counters) {
        DataWriter keyScratch = new DataWriter(64);
        DataWriter recordScratch = new DataWriter(256);
        return record -> {
            keyScratch.reset();
            keyType.write(keySelector.getKey(record), keyScratch);
            int group = Murmur.keyGroup(keyScratch.buffer(), 0, keyScratch.position(), subpartitions);
            recordScratch.reset();
            recordType.write(record, recordScratch);
            writer.write(group, recordScratch.buffer(), 0, recordScratch.position());
            counters.recordsOut++;
        };
    }

    /** Spreads records round-robin, starting at a different subpartition in every task. */
    static Downstream rebalance(TypeSerializer<Object> recordType, PartitionFileWriter writer, int subpartitions,
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

    /**
     * Pre-aggregates by key before the exchange and writes (key, partial accumulator) records.
     * When the groups outgrow the memory budget they are written out and the table starts
     * again: the consumer merges partials, so flushing early only costs bytes.
     */
    static final class Combiner implements Downstream {
        private static final int ENTRY_OVERHEAD_BYTES = 96;

        private final KeySelector<Object, Object> keySelector;
        private final TypeSerializer<Object> keyType;
        private final TypeSerializer<Object> accType;
        private final KeyedAggregation<Object, Object, Object, Object> aggregation;
        private final PartitionFileWriter writer;
        private final int subpartitions;
        private final long budgetBytes;
        private final TaskCounters counters;
        private final Map<Object, Object[]> groups = new HashMap<>();
        private final DataWriter scratch = new DataWriter(256);
        private long estimatedBytes;

        Combiner(KeySelector<Object, Object> keySelector, TypeSerializer<Object> keyType, TypeSerializer<Object> accType,
                KeyedAggregation<Object, Object, Object, Object> aggregation, PartitionFileWriter writer,
                int subpartitions, long budgetBytes, TaskCounters counters) {
            this.keySelector = keySelector;
            this.keyType = keyType;
            this.accType = accType;
            this.aggregation = aggregation;
            this.writer = writer;
            this.subpartitions = subpartitions;
            this.budgetBytes = budgetBytes;
            this.counters = counters;
        }

        @Override
        public void push(Object record) throws Exception {
            Object key = keySelector.getKey(record);
            // One lookup per record: the accumulator lives in a one-element array updated in place.
            Object[] slot = groups.get(key);
            if (slot == null) {
                groups.put(key, new Object[] {aggregation.first(record)});
                estimatedBytes += ENTRY_OVERHEAD_BYTES;
                if (estimatedBytes > budgetBytes) {
                    flush();
                }
            } else {
                slot[0] = aggregation.add(slot[0], record);
            }
        }

        private void flush() throws java.io.IOException {
            for (Map.Entry<Object, Object[]> entry : groups.entrySet()) {
                scratch.reset();
                keyType.write(entry.getKey(), scratch);
                int group = Murmur.keyGroup(scratch.buffer(), 0, scratch.position(), subpartitions);
                accType.write(entry.getValue()[0], scratch);
                writer.write(group, scratch.buffer(), 0, scratch.position());
                counters.recordsOut++;
            }
            groups.clear();
            estimatedBytes = 0;
        }

        @Override
        public void finish() throws java.io.IOException {
            flush();
        }
    }
}
