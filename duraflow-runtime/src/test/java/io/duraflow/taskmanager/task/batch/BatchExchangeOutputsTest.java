package io.duraflow.taskmanager.task.batch;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.api.types.TypeSerializer;
import io.duraflow.api.types.Types;
import io.duraflow.taskmanager.task.Downstream;
import io.duraflow.taskmanager.task.InMemoryPartitionWriter;
import io.duraflow.taskmanager.task.TaskCounters;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The keyed exchange of a batch join, written through the writer interface. */
class BatchExchangeOutputsTest {
    private static final TypeSerializer<Object> LONGS = cast(Types.LONG);

    @SuppressWarnings("unchecked")
    private static TypeSerializer<Object> cast(TypeSerializer<?> type) {
        return (TypeSerializer<Object>) type;
    }

    @Test
    void hashSendsEqualKeysToOneSubpartition() throws Exception {
        var writer = new InMemoryPartitionWriter(4);
        Downstream out = BatchExchangeOutputs.hash(r -> (Long) r % 5, LONGS, LONGS, writer, 4, new TaskCounters());
        for (long i = 0; i < 50; i++) {
            out.push(i);
        }
        for (int sub = 0; sub < 4; sub++) {
            List<Long> records = writer.read(sub, Types.LONG);
            for (Long record : records) {
                for (int other = 0; other < 4; other++) {
                    if (other != sub) {
                        assertThat(writer.read(other, Types.LONG)).noneMatch(r -> r % 5 == record % 5);
                    }
                }
            }
        }
    }
}
