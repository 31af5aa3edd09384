package io.duraflow.api.connectors;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.api.connectors.SourceHarness.RecordingEnumeratorContext;
import io.duraflow.api.source.QueueSplitEnumerator;
import io.duraflow.api.source.SplitSerializer;
import io.duraflow.api.types.DataReader;
import io.duraflow.api.types.DataWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

class QueueSplitEnumeratorTest {

    /** Counts how often splits are written. */
    private static final class CountingSerializer implements SplitSerializer<RangeSplit> {
        int writes;

        @Override
        public void write(RangeSplit split, DataWriter out) {
            writes++;
            RangeSplit.SERIALIZER.write(split, out);
        }

        @Override
        public RangeSplit read(DataReader in) {
            return RangeSplit.SERIALIZER.read(in);
        }
    }

    @Test
    void encodesEachSplitOnceWhenItEntersTheQueueNotOnEverySnapshot() {
        CountingSerializer serializer = new CountingSerializer();
        RecordingEnumeratorContext<RangeSplit> context = new RecordingEnumeratorContext<>(1);
        QueueSplitEnumerator<RangeSplit> enumerator = new QueueSplitEnumerator<>(context, serializer,
                RangeSplit.split(0, 100, 4));
        assertThat(serializer.writes).isEqualTo(4);

        byte[] first = enumerator.snapshotState(1);
        byte[] second = enumerator.snapshotState(2);
        enumerator.handleSplitRequest(0);
        enumerator.addSplitsBack(List.of(context.assigned.get(0)), 0);
        byte[] afterAddBack = enumerator.snapshotState(3);

        assertThat(serializer.writes).isEqualTo(5);
        assertThat(second).isEqualTo(first);
        assertThat(afterAddBack).isEqualTo(first);

        QueueSplitEnumerator<RangeSplit> restored = QueueSplitEnumerator.restore(context, serializer, first);
        assertThat(restored.snapshotState(4)).isEqualTo(first);
        assertThat(serializer.writes).isEqualTo(5);
    }
}
