package io.duraflow.taskmanager.task.streaming;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.api.JobBuilder;
import io.duraflow.api.KeyedFlow;
import io.duraflow.api.NonRetriableException;
import io.duraflow.api.connectors.SequenceSource;
import io.duraflow.api.dag.Operation;
import io.duraflow.api.eventtime.TimestampAssigner;
import io.duraflow.api.functions.Collector;
import io.duraflow.api.functions.ProcessJoinFunction;
import io.duraflow.api.state.MapState;
import io.duraflow.api.state.MapStateDescriptor;
import io.duraflow.api.types.Tuple2;
import io.duraflow.api.types.Types;
import io.duraflow.state.OperatorSubtaskState;
import io.duraflow.state.backend.KeyedStateBackend;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The interval join, a keyed co-process function of the API, run by its operator over a real
 * backend: against a brute-force join of the records that were not late, over random histories
 * of out-of-order records and watermarks, with every buffered record still joinable after each
 * watermark and nothing left at the end of time.
 */
class IntervalJoinOperatorTest {
    private static final long KEYS = 5;

    @TempDir
    Path dir;

    /** Emits "L{id}/R{id}@{timestamp}" and checks the context's timestamps. */
    static final class Pairs extends ProcessJoinFunction<Tuple2<Long, Long>, Tuple2<Long, Long>, String> {
        @Override
        public void processElement(Tuple2<Long, Long> left, Tuple2<Long, Long> right, Context context,
                Collector<String> out) {
            if (context.timestamp() != Math.max(context.leftTimestamp(), context.rightTimestamp())) {
                throw new IllegalStateException("timestamp " + context.timestamp());
            }
            out.collect("L" + left.f1() + "/R" + right.f1() + "@" + context.timestamp());
        }
    }

    /** A record of the history: (key, id) on input 0 or 1 at a timestamp. */
    private record Event(int input, long key, long id, long timestamp) {}

    private static KeyedFlow<Tuple2<Long, Long>, Long> records(JobBuilder job, String name) {
        // The plan is compiled (it checks that the join's inputs have timestamps); the test hands the
        // operator its records with their timestamps directly.
        return job.fromSource(name, new SequenceSource(0, 10, 1),
                io.duraflow.api.eventtime.WatermarkStrategy.<Long>forMonotonousTimestamps()
                        .withTimestampAssigner((n, previous) -> n)).map(n -> Tuple2.of(n, n),
                Types.tuple(Types.LONG, Types.LONG)).keyBy(Tuple2::f0, Types.LONG);
    }

    private static Operation.KeyedCoProcessOp join(long lower, long upper, boolean lowerExclusive,
            boolean upperExclusive) {
        JobBuilder job = new JobBuilder("interval join");
        var bounded = records(job, "left").intervalJoin(records(job, "right"))
                .between(Duration.ofMillis(lower), Duration.ofMillis(upper));
        if (lowerExclusive) {
            bounded.lowerBoundExclusive();
        }
        if (upperExclusive) {
            bounded.upperBoundExclusive();
        }
        bounded.process(new Pairs(), Types.STRING).collect("out");
        return CoProcessFixture.operation(job);
    }

    @ParameterizedTest
    @CsvSource({"heap,1", "heap,2", "heap,3", "rocksdb,4", "rocksdb,5"})
    void theJoinIsABruteForceJoinOfTheRecordsThatWereNotLate(String backend, long seed) throws Exception {
        Random random = new Random(seed);
        long lower = random.nextInt(41) - 30;
        long upper = lower + random.nextInt(40);
        boolean lowerExclusive = random.nextBoolean();
        boolean upperExclusive = random.nextBoolean() && upper > lower + (lowerExclusive ? 1 : 0);
        Operation.KeyedCoProcessOp op = join(lower, upper, lowerExclusive, upperExclusive);
        long from = lowerExclusive ? lower + 1 : lower;
        long to = upperExclusive ? upper - 1 : upper;

        CoProcessFixture fixture = new CoProcessFixture(dir);
        List<Event> onTime = new ArrayList<>();
        int late = 0;
        long watermark = Long.MIN_VALUE;
        try (OperatorStateHolder holder = fixture.holder(backend, op, OperatorSubtaskState.EMPTY, -1)) {
            KeyedCoProcessOperator operator = fixture.open(op, holder);
            for (int step = 0; step < 1_500; step++) {
                Event event = new Event(random.nextInt(2), random.nextInt((int) KEYS), step, step
                        + random.nextInt(61) - 30);
                fixture.process(operator, event.input(), Tuple2.of(event.key(), event.id()), event.timestamp());
                if (event.timestamp() > watermark) {
                    onTime.add(event);
                } else {
                    late++;
                }
                if (step % 25 == 24) {
                    // Mostly behind every record to come; now and then ahead of a few, which are late.
                    watermark = Math.max(watermark, step - (random.nextInt(5) == 0 ? 10 : 31));
                    operator.processWatermark(watermark);
                    assertEveryBufferedRecordCanStillJoin(holder.initializationContext().keyedState(), watermark,
                            from, to);
                }
            }
            operator.processWatermark(Long.MAX_VALUE);
            assertBuffersEmpty(holder.initializationContext().keyedState());
        }

        List<String> expected = new ArrayList<>();
        for (Event left : onTime) {
            for (Event right : onTime) {
                long gap = right.timestamp() - left.timestamp();
                if (left.input() == 0 && right.input() == 1 && left.key() == right.key() && gap >= from && gap <= to) {
                    long timestamp = Math.max(left.timestamp(), right.timestamp());
                    expected.add("L" + left.id() + "/R" + right.id() + "@" + timestamp + " pushed@" + timestamp);
                }
            }
        }
        List<String> joined = fixture.seen.stream().filter(line -> !line.startsWith("watermark")).toList();
        assertThat(expected).as("pairs in [%d, %d]", from, to).hasSizeGreaterThan(200);
        assertThat(late).as("late records").isPositive();
        assertThat(joined).containsExactlyInAnyOrderElementsOf(expected);
    }

    @ParameterizedTest
    @ValueSource(strings = {"heap"})
    void aRecordWithoutTimestampFailsTheJobSayingToSetAWatermarkStrategy(String backend) throws Exception {
        Operation.KeyedCoProcessOp op = join(0, 5, false, false);
        CoProcessFixture fixture = new CoProcessFixture(dir);
        try (OperatorStateHolder holder = fixture.holder(backend, op, OperatorSubtaskState.EMPTY, -1)) {
            KeyedCoProcessOperator operator = fixture.open(op, holder);
            assertThatThrownBy(() -> fixture.process(operator, 1, Tuple2.of(1L, 2L), TimestampAssigner.NO_TIMESTAMP))
                    .isInstanceOf(NonRetriableException.class)
                    .hasMessageContaining("a right record has no timestamp")
                    .hasMessageContaining("WatermarkStrategy");
        }
    }

    private static MapState<Long, List<Tuple2<Long, Long>>> buffer(KeyedStateBackend<Object> state, String side) {
        return state.getMapState(new MapStateDescriptor<>("interval-join-" + side, Types.LONG,
                Types.list(Types.tuple(Types.LONG, Types.LONG))));
    }

    /** A left record waits while {@code ts + to > watermark}, a right one while {@code ts - from > watermark}. */
    private static void assertEveryBufferedRecordCanStillJoin(KeyedStateBackend<Object> state, long watermark,
            long from, long to) {
        for (long key = 0; key < KEYS; key++) {
            state.setCurrentKey(key);
            for (long timestamp : buffer(state, "left").keys()) {
                assertThat(timestamp + to).as("left record at %d, watermark %d", timestamp, watermark)
                        .isGreaterThan(watermark);
            }
            for (long timestamp : buffer(state, "right").keys()) {
                assertThat(timestamp - from).as("right record at %d, watermark %d", timestamp, watermark)
                        .isGreaterThan(watermark);
            }
        }
    }

    private static void assertBuffersEmpty(KeyedStateBackend<Object> state) {
        for (long key = 0; key < KEYS; key++) {
            state.setCurrentKey(key);
            assertThat(buffer(state, "left").isEmpty()).as("left buffer of key %d", key).isTrue();
            assertThat(buffer(state, "right").isEmpty()).as("right buffer of key %d", key).isTrue();
        }
    }
}
