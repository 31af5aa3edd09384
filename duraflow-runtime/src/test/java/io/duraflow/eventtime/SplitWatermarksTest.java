package io.duraflow.eventtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.api.eventtime.TimestampAssigner;
import io.duraflow.api.eventtime.WatermarkStrategy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SplitWatermarksTest {
    private final List<Object> out = new ArrayList<>();
    private final WatermarkCombiner.Output output = new WatermarkCombiner.Output() {
        @Override
        public void watermark(long watermark) {
            out.add(watermark);
        }

        @Override
        public void idle(boolean idle) {
            out.add(idle ? "idle" : "active");
        }
    };

    /** Records are their own timestamps. */
    private static WatermarkStrategy<Long> bounded(long ms) {
        return WatermarkStrategy.<Long>forBoundedOutOfOrderness(Duration.ofMillis(ms)).withTimestampAssigner((r, p) -> r);
    }

    @Test
    void theReadersWatermarkIsTheSlowestSplits() {
        SplitWatermarks<Long> reader = new SplitWatermarks<>(bounded(10), output);
        assertThat(out).isEmpty();
        reader.addSplit("a", 0);
        reader.addSplit("b", 0);
        assertThat(reader.onRecord("a", 100L, TimestampAssigner.NO_TIMESTAMP, 1)).isEqualTo(100);
        reader.onRecord("b", 50L, TimestampAssigner.NO_TIMESTAMP, 1);
        reader.onRecord("a", 300L, TimestampAssigner.NO_TIMESTAMP, 2);
        reader.onPeriodic(200);
        assertThat(reader.current()).as("b's 50 - 10 - 1").isEqualTo(39);
        reader.onRecord("b", 90L, TimestampAssigner.NO_TIMESTAMP, 300);
        reader.onPeriodic(400);
        assertThat(out).containsExactly(39L, 79L);
    }

    @Test
    void aReaderHoldsEventTimeUntilItsFirstSplitUnlessItIdlesOrEnds() {
        SplitWatermarks<Long> waiting = new SplitWatermarks<>(bounded(0), output);
        waiting.onPeriodic(0);
        waiting.onPeriodic(60_000);
        assertThat(waiting.isIdle()).as("a reader that may still get a split").isFalse();
        assertThat(waiting.current()).isEqualTo(Long.MIN_VALUE);
        waiting.noMoreSplits();
        assertThat(waiting.current()).as("none came").isEqualTo(WatermarkCombiner.END_OF_TIME);

        SplitWatermarks<Long> idling = new SplitWatermarks<>(bounded(0).withIdleness(Duration.ofMillis(500)), output);
        idling.onPeriodic(1_000);
        idling.onPeriodic(1_400);
        assertThat(idling.isIdle()).isFalse();
        idling.onPeriodic(1_500);
        assertThat(idling.isIdle()).as("idle after the timeout without splits").isTrue();
        idling.addSplit("late", 1_600);
        idling.onRecord("late", 42L, TimestampAssigner.NO_TIMESTAMP, 1_600);
        idling.onPeriodic(1_700);
        assertThat(idling.isIdle()).isFalse();
        assertThat(idling.current()).isEqualTo(41);
    }

    @Test
    void anIdleSplitHoldsNothingBackUntilItsNextRecord() {
        SplitWatermarks<Long> reader = new SplitWatermarks<>(bounded(0).withIdleness(Duration.ofMillis(500)), output);
        reader.addSplit("busy", 0);
        reader.addSplit("quiet", 0);
        reader.onRecord("quiet", 5L, TimestampAssigner.NO_TIMESTAMP, 0);
        for (long now = 100; now <= 1_000; now += 100) {
            reader.onRecord("busy", now * 10, TimestampAssigner.NO_TIMESTAMP, now);
            reader.onPeriodic(now);
        }
        assertThat(reader.current()).as("quiet idled at 500 ms").isEqualTo(9_999);
        reader.onRecord("quiet", 20L, TimestampAssigner.NO_TIMESTAMP, 1_050);
        reader.onRecord("busy", 20_000L, TimestampAssigner.NO_TIMESTAMP, 1_100);
        reader.onPeriodic(1_100);
        assertThat(reader.current()).as("quiet is active again below it: held").isEqualTo(9_999);
    }

    @Test
    void finishedSplitsHoldNothingBackAndTheEndOfTimeComesWithTheLastSplitOnceNoneWillCome() {
        SplitWatermarks<Long> reader = new SplitWatermarks<>(bounded(0), output);
        reader.addSplit("a", 0);
        reader.addSplit("b", 0);
        reader.onRecord("a", 7L, TimestampAssigner.NO_TIMESTAMP, 0);
        reader.onRecord("b", 3L, TimestampAssigner.NO_TIMESTAMP, 0);
        reader.onPeriodic(200);
        assertThat(reader.current()).isEqualTo(2);
        reader.onRecord("b", 4L, TimestampAssigner.NO_TIMESTAMP, 300);
        reader.splitFinished("b");
        assertThat(reader.current()).as("only a holds it now").isEqualTo(6);
        reader.splitFinished("a");
        assertThat(reader.current()).as("more splits may come").isEqualTo(6);
        assertThat(reader.isIdle()).isTrue();
        reader.noMoreSplits();
        assertThat(reader.current()).isEqualTo(WatermarkCombiner.END_OF_TIME);
        assertThatThrownBy(() -> reader.onRecord("a", 1L, 0, 0)).hasMessage("no split a was added");
    }

    @Test
    void withoutAnAssignerARecordKeepsItsSourceTimestamp() {
        SplitWatermarks<Long> reader = new SplitWatermarks<>(WatermarkStrategy.forMonotonousTimestamps(), output);
        reader.addSplit("a", 0);
        assertThat(reader.onRecord("a", 1L, 1_234, 0)).isEqualTo(1_234);
        reader.onPeriodic(200);
        assertThat(reader.current()).isEqualTo(1_233);
    }
}
