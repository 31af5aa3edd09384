package io.duraflow.taskmanager.task.streaming;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.api.eventtime.TimestampAssigner;
import io.duraflow.api.eventtime.WatermarkStrategy;
import io.duraflow.api.source.ReaderOutput;
import io.duraflow.api.types.DataReader;
import io.duraflow.api.types.DataWriter;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.api.types.Types;
import io.duraflow.eventtime.WatermarkCombiner;
import io.duraflow.taskmanager.task.Downstream;
import io.duraflow.taskmanager.task.TaskCounters;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Where timestamps and watermarks come from in a streaming task: a source's splits, an assigner, the wire. */
class EventTimeOperatorsTest {
    private final RecordTime time = new RecordTime();
    /** What reached the rest of the chain: "record@timestamp" and "wm watermark". */
    private final List<String> seen = new ArrayList<>();
    private final Downstream chain = new Downstream() {
        @Override
        public void push(Object record) {
            seen.add(record + "@" + time.timestamp);
        }

        @Override
        public void processWatermark(long watermark) {
            seen.add("wm " + (watermark == WatermarkCombiner.END_OF_TIME ? "end" : watermark));
        }
    };

    @SuppressWarnings("unchecked")
    private static WatermarkStrategy<Object> boundedBy(long ms) {
        return (WatermarkStrategy<Object>) (WatermarkStrategy<?>) WatermarkStrategy.<Long>forBoundedOutOfOrderness(
                Duration.ofMillis(ms)).withTimestampAssigner((record, previous) -> record);
    }

    @Test
    void aSourcesRecordsGetTheirSplitsTimestampsAndTheReaderTheLowestSplitWatermark() {
        List<Boolean> idleness = new ArrayList<>();
        SourceEventTime output = new SourceEventTime(boundedBy(5), chain, new TaskCounters(), time, 0, idleness::add);
        ReaderOutput.SplitOutput<Object> a = output.forSplit("a");
        ReaderOutput.SplitOutput<Object> b = output.forSplit("b");
        a.collect(100L);
        b.collect(40L);
        a.collect(120L);
        output.onPeriodic(200);
        b.collect(90L);
        output.releaseSplit("a");
        output.onPeriodic(400);
        output.endOfInput();

        assertThat(seen).containsExactly("100@100", "40@40", "120@120", "wm 34", "90@90", "wm 84", "wm end");
        assertThat(idleness).as("a reader without splits starts idle").startsWith(true);
    }

    @Test
    void anAssignerReplacesUpstreamWatermarksWithItsOwnButPassesTheEndOfTime() throws Exception {
        KeyedProcessOperatorTest.ManualTime clock = new KeyedProcessOperatorTest.ManualTime();
        TimestampsAndWatermarksOperator operator = new TimestampsAndWatermarksOperator(boundedBy(10), chain, time,
                clock, 200);
        operator.open(null);
        time.timestamp = 7; // what upstream gave the record: the assigner overrides it
        operator.push(1_000L);
        operator.processWatermark(5_000); // upstream's: swallowed
        operator.push(1_500L);
        clock.advanceTo(clock.now + 200);
        operator.push(1_200L);
        clock.advanceTo(clock.now + 200); // the same watermark again: not emitted twice
        operator.processWatermark(WatermarkCombiner.END_OF_TIME);

        assertThat(seen).containsExactly("1000@1000", "1500@1500", "wm 1489", "1200@1200", "wm end");
    }

    @Test
    void timestampsCrossTheWireAheadOfTheirRecords() {
        TypeSerializer<Object> writer = time.writerOf(castLong());
        DataWriter out = new DataWriter(64);
        time.timestamp = 1_700_000_000_123L;
        writer.write(42L, out);
        time.timestamp = TimestampAssigner.NO_TIMESTAMP;
        writer.write(43L, out);

        DataReader in = new DataReader();
        in.reset(out.buffer(), 0, out.position());
        assertThat(in.readLong()).isEqualTo(1_700_000_000_123L);
        assertThat(Types.LONG.read(in)).isEqualTo(42L);
        assertThat(in.readLong()).isEqualTo(TimestampAssigner.NO_TIMESTAMP);
        assertThat(Types.LONG.read(in)).isEqualTo(43L);
    }

    @SuppressWarnings("unchecked")
    private static TypeSerializer<Object> castLong() {
        return (TypeSerializer<Object>) (TypeSerializer<?>) Types.LONG;
    }
}
