package io.duraflow.taskmanager.task.batch;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.api.types.TypeSerializer;
import io.duraflow.api.types.Types;
import io.duraflow.api.dag.KeyedAggregation;
import io.duraflow.exchange.blocking.PartitionFileWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import io.duraflow.taskmanager.task.TaskCounters;

class CombinerTest {
    private static final long BUDGET = 64 * 1024;

    @TempDir
    Path dir;

    /** Collects every value of a key into a list: an accumulator that grows with its input. */
    private static final KeyedAggregation<Object, Object, Object, Object> COLLECT_VALUES = new KeyedAggregation<>() {
        @Override
        public Object first(Object value) {
            List<Long> values = new ArrayList<>();
            values.add((Long) value);
            return values;
        }

        @Override
        @SuppressWarnings("unchecked")
        public Object add(Object accumulator, Object value) {
            ((List<Long>) accumulator).add((Long) value);
            return accumulator;
        }

        @Override
        @SuppressWarnings("unchecked")
        public Object merge(Object left, Object right) {
            ((List<Long>) left).addAll((List<Long>) right);
            return left;
        }

        @Override
        public Object result(Object key, Object accumulator) {
            return accumulator;
        }
    };

    @SuppressWarnings({"unchecked", "rawtypes"})
    private BatchExchangeOutputs.Combiner combiner(io.duraflow.api.functions.KeySelector<Object, Object> keySelector,
            TypeSerializer<?> keyType, PartitionFileWriter writer) {
        return new BatchExchangeOutputs.Combiner(keySelector, (TypeSerializer) keyType,
                (TypeSerializer) Types.list(Types.LONG), COLLECT_VALUES, writer, 4, BUDGET, new TaskCounters());
    }

    private PartitionFileWriter writer() throws Exception {
        return new PartitionFileWriter(dir.resolve("data"), dir.resolve("index"), 4, 1 << 16);
    }

    @Test
    void largeKeysAreChargedTheirSizeSoTheTableFlushesByBytes() throws Exception {
        String padding = "k".repeat(10_000);
        try (PartitionFileWriter writer = writer()) {
            BatchExchangeOutputs.Combiner combiner = combiner(value -> padding + ((Long) value % 60), Types.STRING, writer);
            for (long i = 0; i < 120; i++) {
                combiner.push(i);
                assertThat(combiner.estimatedBytes()).isLessThanOrEqualTo(BUDGET);
            }
            combiner.endInput();
            // 60 keys of 10 KB against 64 KB: a flush about every 6 new keys, not one at the end.
            assertThat(combiner.flushes()).isGreaterThanOrEqualTo(15);
            assertThat(writer.finish().totalRecords()).isEqualTo(120);
        }
    }

    @Test
    void aGrowingListAccumulatorIsMeasuredAgainAndFlushedBeforeItOutgrowsTheBudget() throws Exception {
        try (PartitionFileWriter writer = writer()) {
            BatchExchangeOutputs.Combiner combiner = combiner(value -> "one key", Types.STRING, writer);
            for (long i = 0; i < 200_000; i++) {
                combiner.push(1_000_000_000L + i);
                // Measured after 1, 2, 4, 8, ... additions: at most twice what was measured.
                assertThat(combiner.estimatedBytes()).isLessThanOrEqualTo(BUDGET);
            }
            combiner.endInput();
            // About 1 MB of longs against 64 KB: many partial lists, none much beyond the budget.
            assertThat(combiner.flushes()).isGreaterThanOrEqualTo(8);
            assertThat(writer.finish().totalRecords()).isEqualTo(combiner.flushes());
        }
    }

    @Test
    void smallKeysAndFixedSizeAccumulatorsDoNotFlushEarly() throws Exception {
        try (PartitionFileWriter writer = writer()) {
            BatchExchangeOutputs.Combiner combiner = combiner(value -> (Long) value % 100, Types.LONG, writer);
            for (long i = 0; i < 100; i++) {
                combiner.push(i);
            }
            combiner.endInput();
            assertThat(combiner.flushes()).isEqualTo(1);
        }
    }
}
