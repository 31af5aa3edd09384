package io.duraflow.taskmanager.task.streaming;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.api.Flow;
import io.duraflow.api.JobBuilder;
import io.duraflow.api.KeyedFlow;
import io.duraflow.api.connectors.SequenceSource;
import io.duraflow.api.dag.Operation;
import io.duraflow.api.dag.PlanNode;
import io.duraflow.api.eventtime.TimestampAssigner;
import io.duraflow.api.functions.KeyedProcessFunction;
import io.duraflow.api.functions.KeySelector;
import io.duraflow.api.types.Tuple2;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.api.types.Types;
import io.duraflow.api.windowing.CountTrigger;
import io.duraflow.api.windowing.EventTimeSessionWindows;
import io.duraflow.api.windowing.GlobalWindows;
import io.duraflow.api.windowing.ProcessingTimeSessionWindows;
import io.duraflow.api.windowing.PurgingTrigger;
import io.duraflow.api.windowing.Trigger;
import io.duraflow.api.windowing.TriggerContext;
import io.duraflow.api.windowing.TriggerResult;
import io.duraflow.api.windowing.TimeWindow;
import io.duraflow.api.windowing.TumblingEventTimeWindows;
import io.duraflow.api.windowing.TumblingProcessingTimeWindows;
import io.duraflow.api.WindowedFlow;
import io.duraflow.state.KeyGroupRange;
import io.duraflow.state.heap.HeapStateBackend;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Window features the event-time simulation does not cover: processing time, count triggers, errors. */
class WindowOperatorTest {
    private static final TypeSerializer<Tuple2<Long, Long>> PAIR = Types.tuple(Types.LONG, Types.LONG);
    private static final KeyGroupRange ALL = new KeyGroupRange(0, KeyedOperatorHarness.MAX_PARALLELISM - 1);

    @TempDir
    Path dir;

    /** (key, value) pairs summed per window; the window built by {@code windows} from keyBy(key). */
    private KeyedOperatorHarness<Long> harness(
            Function<KeyedFlow<Tuple2<Long, Long>, Long>, Flow<Tuple2<Long, Long>>> windows) throws Exception {
        return new KeyedOperatorHarness<>(new HeapStateBackend(), dir, (KeySelector<Tuple2<Long, Long>, Long>) Tuple2::f0,
                Types.LONG, function(windows), ALL, List.of(), -1, 1_000);
    }

    @SuppressWarnings("unchecked")
    private static KeyedProcessFunction<Long, ?, ?> function(
            Function<KeyedFlow<Tuple2<Long, Long>, Long>, Flow<Tuple2<Long, Long>>> windows) {
        JobBuilder job = new JobBuilder("windows");
        Flow<Tuple2<Long, Long>> pairs = job.fromSource("numbers", new SequenceSource(0, 1, 1))
                .map(n -> Tuple2.of(n, n), PAIR);
        windows.apply(pairs.keyBy(Tuple2::f0, Types.LONG)).collect("out");
        List<PlanNode> nodes = job.plan().nodes();
        return (KeyedProcessFunction<Long, ?, ?>) (Object)
                ((Operation.KeyedProcessOp) nodes.get(nodes.size() - 2).operation()).function();
    }

    private static Tuple2<Long, Long> sum(Tuple2<Long, Long> a, Tuple2<Long, Long> b) {
        return Tuple2.of(a.f0(), a.f1() + b.f1());
    }

    private static List<String> drained(KeyedOperatorHarness<Long> harness) {
        return harness.drainOutput().stream().map(e -> e.record() + "@" + e.timestamp()).toList();
    }

    @Test
    void processingTimeWindowsFireWhenTheClockPassesTheirEnd() throws Exception {
        try (KeyedOperatorHarness<Long> harness = harness(keyed -> keyed
                .window(TumblingProcessingTimeWindows.of(Duration.ofMillis(100))).reduce(WindowOperatorTest::sum))) {
            harness.setProcessingTime(1_010);
            harness.processElement(Tuple2.of(1L, 5L), TimestampAssigner.NO_TIMESTAMP);
            harness.processElement(Tuple2.of(2L, 7L), TimestampAssigner.NO_TIMESTAMP);
            harness.setProcessingTime(1_050);
            harness.processElement(Tuple2.of(1L, 6L), TimestampAssigner.NO_TIMESTAMP);
            harness.setProcessingTime(1_098);
            assertThat(drained(harness)).isEmpty();
            harness.processElement(Tuple2.of(1L, 1L), TimestampAssigner.NO_TIMESTAMP);
            harness.setProcessingTime(1_099);
            assertThat(drained(harness)).containsExactlyInAnyOrder("(1,12)@1099", "(2,7)@1099");
            harness.setProcessingTime(1_120);
            harness.processElement(Tuple2.of(1L, 3L), TimestampAssigner.NO_TIMESTAMP);
            harness.setProcessingTime(1_300);
            assertThat(drained(harness)).containsExactly("(1,3)@1199");
        }
    }

    @Test
    void processingTimeSessionsCloseAfterTheGapWithoutRecords() throws Exception {
        try (KeyedOperatorHarness<Long> harness = harness(keyed -> keyed
                .window(ProcessingTimeSessionWindows.withGap(Duration.ofMillis(50))).reduce(WindowOperatorTest::sum))) {
            for (long t = 1_000; t <= 1_120; t += 30) {
                harness.setProcessingTime(t);
                harness.processElement(Tuple2.of(1L, 1L), TimestampAssigner.NO_TIMESTAMP);
            }
            harness.setProcessingTime(1_168);
            assertThat(drained(harness)).isEmpty();
            harness.setProcessingTime(1_169);
            assertThat(drained(harness)).containsExactly("(1,5)@1169");
        }
    }

    @Test
    void aCountTriggerFiresEveryNRecordsOfAGlobalWindowAndPurgingStartsAfresh() throws Exception {
        try (KeyedOperatorHarness<Long> harness = harness(keyed -> keyed.window(GlobalWindows.create())
                .trigger(CountTrigger.of(3)).reduce(WindowOperatorTest::sum))) {
            for (long v = 1; v <= 7; v++) {
                harness.processElement(Tuple2.of(1L, v), TimestampAssigner.NO_TIMESTAMP);
            }
            harness.processWatermark(Long.MAX_VALUE);
            assertThat(drained(harness)).containsExactly("(1,6)@" + Long.MAX_VALUE,
                    "(1,21)@" + Long.MAX_VALUE);
        }
        try (KeyedOperatorHarness<Long> harness = harness(keyed -> keyed.window(GlobalWindows.create())
                .trigger(PurgingTrigger.of(CountTrigger.of(3))).reduce(WindowOperatorTest::sum))) {
            for (long v = 1; v <= 7; v++) {
                harness.processElement(Tuple2.of(1L, v), TimestampAssigner.NO_TIMESTAMP);
            }
            assertThat(drained(harness)).extracting(s -> s.substring(0, s.indexOf('@')))
                    .containsExactly("(1,6)", "(1,15)");
        }
    }

    @Test
    void aCountTriggerOnEventTimeWindowsReplacesTheFiringAtTheEnd() throws Exception {
        try (KeyedOperatorHarness<Long> harness = harness(keyed -> keyed
                .window(TumblingEventTimeWindows.of(Duration.ofMillis(10))).trigger(CountTrigger.of(2))
                .reduce(WindowOperatorTest::sum))) {
            harness.processElement(Tuple2.of(1L, 1L), 1);
            harness.processElement(Tuple2.of(1L, 2L), 2);
            harness.processElement(Tuple2.of(1L, 4L), 3);
            harness.processWatermark(100);
            // fired at two records; dropped at the end of the window without firing again
            assertThat(drained(harness)).containsExactly("(1,3)@9");
            harness.processElement(Tuple2.of(1L, 4L), 4);
            assertThat(drained(harness)).isEmpty();
        }
    }

    @Test
    void anEventTimeWindowWithoutTimestampsSaysWhatToSet() throws Exception {
        try (KeyedOperatorHarness<Long> harness = harness(keyed -> keyed
                .window(TumblingEventTimeWindows.of(Duration.ofMillis(10))).reduce(WindowOperatorTest::sum))) {
            assertThatThrownBy(() -> harness.processElement(Tuple2.of(1L, 1L), TimestampAssigner.NO_TIMESTAMP))
                    .hasMessageContaining("TumblingEventTimeWindows(10ms) needs the records' timestamps")
                    .hasMessageContaining("WatermarkStrategy");
        }
    }

    @Test
    void settingsThatCannotWorkAreRefusedWhenTheJobIsBuilt() {
        assertThatThrownBy(() -> function(keyed -> keyed.window(TumblingProcessingTimeWindows.of(Duration.ofSeconds(1)))
                .allowedLateness(Duration.ofSeconds(1)).reduce(WindowOperatorTest::sum)))
                .hasMessageContaining("allowed lateness applies to event-time windows");
        Trigger<TimeWindow> notMerging = new Trigger<>() {
            @Override
            public TriggerResult onElement(long timestamp, TimeWindow window, TriggerContext context) {
                return TriggerResult.CONTINUE;
            }

            @Override
            public String description() {
                return "Mine";
            }
        };
        assertThatThrownBy(() -> function(keyed -> keyed.window(EventTimeSessionWindows.withGap(Duration.ofSeconds(1)))
                .trigger(notMerging).reduce(WindowOperatorTest::sum)))
                .hasMessageContaining("Mine cannot merge");
    }

    @Test
    void theOperatorIsNamedAfterItsWindows() {
        JobBuilder job = new JobBuilder("windows");
        WindowedFlow<Long, Long, TimeWindow> windowed = job.fromSource("numbers", new SequenceSource(0, 1, 1))
                .keyBy(n -> n, Types.LONG).window(TumblingEventTimeWindows.of(Duration.ofMinutes(1)))
                .allowedLateness(Duration.ofSeconds(5));
        windowed.reduce(Long::sum).collect("out");
        assertThat(job.plan().nodes().get(1).name())
                .isEqualTo("Window(TumblingEventTimeWindows(1m), lateness 5s) -> Reduce");
    }
}
