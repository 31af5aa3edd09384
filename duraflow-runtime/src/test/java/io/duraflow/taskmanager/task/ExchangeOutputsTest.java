package io.duraflow.taskmanager.task;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.api.types.TypeSerializer;
import io.duraflow.api.types.Types;
import org.junit.jupiter.api.Test;

/** Each ship strategy's output both modes share, written through the writer interface. */
class ExchangeOutputsTest {
    private static final TypeSerializer<Object> LONGS = cast(Types.LONG);

    @SuppressWarnings("unchecked")
    private static TypeSerializer<Object> cast(TypeSerializer<?> type) {
        return (TypeSerializer<Object>) type;
    }

    @Test
    void forwardWritesOnlyToTheSubpartitionOfItsOwnTask() throws Exception {
        var writer = new InMemoryPartitionWriter(3);
        TaskCounters counters = new TaskCounters();
        Downstream out = ExchangeOutputs.forward(LONGS, writer, 1, counters);
        out.push(7L);
        out.push(8L);
        assertThat(writer.read(1, Types.LONG)).containsExactly(7L, 8L);
        assertThat(writer.subpartitions.get(0)).isEmpty();
        assertThat(writer.subpartitions.get(2)).isEmpty();
        assertThat(counters.recordsOut).isEqualTo(2);
    }

    @Test
    void broadcastWritesEveryRecordToEverySubpartition() throws Exception {
        var writer = new InMemoryPartitionWriter(3);
        TaskCounters counters = new TaskCounters();
        Downstream out = ExchangeOutputs.broadcast(LONGS, writer, counters);
        out.push(1L);
        out.push(2L);
        for (int sub = 0; sub < 3; sub++) {
            assertThat(writer.read(sub, Types.LONG)).containsExactly(1L, 2L);
        }
        assertThat(counters.recordsOut).as("a broadcast record counts once").isEqualTo(2);
    }

    @Test
    void rebalanceSpreadsRoundRobin() throws Exception {
        var writer = new InMemoryPartitionWriter(2);
        Downstream out = ExchangeOutputs.rebalance(LONGS, writer, 2, 0, new TaskCounters());
        for (long i = 0; i < 4; i++) {
            out.push(i);
        }
        assertThat(writer.read(0, Types.LONG)).containsExactly(0L, 2L);
        assertThat(writer.read(1, Types.LONG)).containsExactly(1L, 3L);
    }
}
