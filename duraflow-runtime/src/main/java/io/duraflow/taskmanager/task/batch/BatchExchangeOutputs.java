package io.duraflow.taskmanager.task.batch;

import io.duraflow.api.functions.KeySelector;
import io.duraflow.api.types.DataWriter;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.api.dag.KeyedAggregation;
import io.duraflow.taskmanager.task.Downstream;
import io.duraflow.taskmanager.task.ExchangeOutputs;
import io.duraflow.taskmanager.task.TaskCounters;
import io.duraflow.exchange.ResultPartitionWriter;
import io.duraflow.util.Murmur;
import java.util.HashMap;
import java.util.Map;

/**
 * The keyed ends of a batch chain that write a result partition through a {@link
 * ResultPartitionWriter}: a record's subpartition is its key group (hash of the serialized key
 * modulo the subpartition count); before an aggregation, a combiner writes partial aggregates.
 */
final class BatchExchangeOutputs {
    private BatchExchangeOutputs() {}

    /** Writes each record to the subpartition of its join key. */
    static Downstream hash(KeySelector<Object, Object> keySelector, TypeSerializer<Object> keyType,
            TypeSerializer<Object> recordType, ResultPartitionWriter writer, int subpartitions, TaskCounters counters) {
        DataWriter keyScratch = new DataWriter(64);
        DataWriter recordScratch = new DataWriter(256);
        return record -> {
            keyScratch.reset();
            keyType.write(ExchangeOutputs.requireKey(keySelector.getKey(record), "join"), keyScratch);
            int group = Murmur.keyGroup(keyScratch.buffer(), 0, keyScratch.position(), subpartitions);
            recordScratch.reset();
            recordType.write(record, recordScratch);
            writer.write(group, recordScratch.buffer(), 0, recordScratch.position());
            counters.recordsOut++;
        };
    }

    /**
     * Pre-aggregates by key before the exchange and writes (key, partial accumulator) records.
     * When the groups outgrow the memory budget they are written out and the table starts
     * again: the consumer merges partials, so flushing early only costs bytes.
     *
     * <p>Each group is charged the serialized size of its key and accumulator plus
     * {@value #ENTRY_OVERHEAD_BYTES} bytes for the map entry and object headers, so large keys
     * count as large. An accumulator may grow (a list): it is measured again after 1, 2, 4, 8, ...
     * additions, so a growing one is under-charged by at most the growth since its last
     * measurement (half its size when it grows linearly), while one of fixed size costs only
     * log2(additions) extra serializations.
     */
    static final class Combiner implements Downstream {
        static final int ENTRY_OVERHEAD_BYTES = 96;

        /** A key's partial accumulator and the bytes it is charged. */
        private static final class Group {
            Object accumulator;
            final int keyBytes;
            int accumulatorBytes;
            int additions;

            Group(Object accumulator, int keyBytes) {
                this.accumulator = accumulator;
                this.keyBytes = keyBytes;
            }
        }

        private final KeySelector<Object, Object> keySelector;
        private final TypeSerializer<Object> keyType;
        private final TypeSerializer<Object> accType;
        private final KeyedAggregation<Object, Object, Object, Object> aggregation;
        private final ResultPartitionWriter writer;
        private final int subpartitions;
        private final long budgetBytes;
        private final TaskCounters counters;
        private final Map<Object, Group> groups = new HashMap<>();
        private final DataWriter scratch = new DataWriter(256);
        private long estimatedBytes;
        private long flushes;

        Combiner(KeySelector<Object, Object> keySelector, TypeSerializer<Object> keyType, TypeSerializer<Object> accType,
                KeyedAggregation<Object, Object, Object, Object> aggregation, ResultPartitionWriter writer,
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
            // One lookup per record: the accumulator lives in a holder updated in place.
            Group group = groups.get(key);
            if (group == null) {
                scratch.reset();
                keyType.write(key, scratch);
                group = new Group(aggregation.first(record), scratch.position());
                groups.put(key, group);
                estimatedBytes += group.keyBytes + ENTRY_OVERHEAD_BYTES + measure(group);
            } else {
                group.accumulator = aggregation.add(group.accumulator, record);
                int additions = ++group.additions;
                if ((additions & (additions - 1)) != 0) {
                    return; // not a power of two: not measured again now
                }
                estimatedBytes += measure(group);
            }
            if (estimatedBytes > budgetBytes) {
                flush();
            }
        }

        /** Serializes the group's accumulator and returns by how much its charge changed. */
        private long measure(Group group) {
            scratch.reset();
            accType.write(group.accumulator, scratch);
            int change = scratch.position() - group.accumulatorBytes;
            group.accumulatorBytes = scratch.position();
            return change;
        }

        private void flush() throws java.io.IOException {
            for (Map.Entry<Object, Group> entry : groups.entrySet()) {
                scratch.reset();
                keyType.write(entry.getKey(), scratch);
                int group = Murmur.keyGroup(scratch.buffer(), 0, scratch.position(), subpartitions);
                accType.write(entry.getValue().accumulator, scratch);
                writer.write(group, scratch.buffer(), 0, scratch.position());
                counters.recordsOut++;
            }
            groups.clear();
            estimatedBytes = 0;
            flushes++;
        }

        /** How often the table was written out, including at finish; for tests. */
        long flushes() {
            return flushes;
        }

        /** The current charge of the table; for tests. */
        long estimatedBytes() {
            return estimatedBytes;
        }

        @Override
        public void endInput() throws java.io.IOException {
            flush();
        }
    }
}
