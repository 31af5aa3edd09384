package io.duraflow.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.api.InvalidJobParametersException;
import io.duraflow.api.JobBuilder;
import io.duraflow.api.JobParameters;
import io.duraflow.api.dag.Operation;
import io.duraflow.api.dag.PlanNode;
import io.duraflow.api.functions.KeyedProcessFunction;
import io.duraflow.api.functions.RuntimeContext;
import io.duraflow.api.functions.TimeDomain;
import io.duraflow.api.functions.TimerService;
import io.duraflow.api.state.KeyedStateStore;
import io.duraflow.api.state.ListState;
import io.duraflow.api.state.ListStateDescriptor;
import io.duraflow.api.state.MapState;
import io.duraflow.api.state.MapStateDescriptor;
import io.duraflow.api.state.ValueState;
import io.duraflow.api.state.ValueStateDescriptor;
import io.duraflow.api.types.Tuple2;
import io.duraflow.api.types.Tuple3;
import io.duraflow.config.RuntimeMode;
import io.duraflow.plan.JobGraph;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The keyed sum's logic, driven directly: the job cannot run end to end until the streaming
 * runtime is wired in, so a tiny keyed state store (a map per state, scoped by the current key)
 * and a context stand in for it.
 */
class StreamingKeyedSumTest {

    /** One parallel instance of the function with its keyed state, fed records one by one. */
    private static final class Harness implements RuntimeContext, KeyedStateStore,
            KeyedProcessFunction.Context<Long> {
        final Map<String, Map<Long, Object>> states = new HashMap<>();
        final List<Tuple3<Long, Long, Long>> emitted = new ArrayList<>();
        final StreamingKeyedSum.SumPerKey function;
        final int attempt;
        Long currentKey;

        Harness(long records, long keys) {
            this(records, keys, -1, 0);
        }

        Harness(long records, long keys, long failAt, int attempt) {
            this.attempt = attempt;
            function = new StreamingKeyedSum.SumPerKey(records, keys, failAt);
            function.open(this);
        }

        void process(Tuple2<Long, Long> record) {
            currentKey = record.f0();
            function.processElement(record, this, emitted::add);
        }

        @SuppressWarnings("unchecked")
        <T> T valueOf(String state, long key) {
            return (T) states.getOrDefault(state, Map.of()).get(key);
        }

        @Override
        public int subtaskIndex() {
            return 0;
        }

        @Override
        public int parallelism() {
            return 1;
        }

        @Override
        public int attemptNumber() {
            return attempt;
        }

        @Override
        public KeyedStateStore state() {
            return this;
        }

        @Override
        public <T> ValueState<T> getState(ValueStateDescriptor<T> descriptor) {
            Map<Long, Object> values = states.computeIfAbsent(descriptor.name(), name -> new HashMap<>());
            return new ValueState<>() {
                @Override
                @SuppressWarnings("unchecked")
                public T value() {
                    return (T) values.get(currentKey);
                }

                @Override
                public void update(T value) {
                    if (value == null) {
                        clear();
                    } else {
                        values.put(currentKey, value);
                    }
                }

                @Override
                public void clear() {
                    values.remove(currentKey);
                }
            };
        }

        @Override
        public <T> ListState<T> getListState(ListStateDescriptor<T> descriptor) {
            throw new AssertionError("the keyed sum declares value state only");
        }

        @Override
        public <K, V> MapState<K, V> getMapState(MapStateDescriptor<K, V> descriptor) {
            throw new AssertionError("the keyed sum declares value state only");
        }

        @Override
        public Long currentKey() {
            return currentKey;
        }

        @Override
        public long timestamp() {
            throw new AssertionError("the keyed sum reads no timestamps");
        }

        @Override
        public TimerService timerService() {
            throw new AssertionError("the keyed sum sets no timers");
        }

        @Override
        public TimeDomain timeDomain() {
            throw new IllegalStateException("the keyed sum has no timers: every call processes a record");
        }
    }

    private static Tuple2<Long, Long> record(long index, long keys) {
        return Tuple2.of(StreamingKeyedSum.key(index, keys), index);
    }

    @Test
    void keepsSumAndCountPerKeyAndEmitsNothingBeforeAKeyIsComplete() {
        Harness harness = new Harness(30, 10);
        for (long i = 0; i < 25; i++) {
            harness.process(record(i, 10));
        }

        long key = StreamingKeyedSum.key(3, 10); // indexes 3, 13 and 23 so far
        Tuple2<Long, Long> sumAndCount = harness.valueOf("sum-and-count", key);
        assertThat(sumAndCount).isEqualTo(Tuple2.of(3L + 13 + 23, 3L));
        long key7 = StreamingKeyedSum.key(7, 10); // indexes 7 and 17
        assertThat(harness.<Tuple2<Long, Long>>valueOf("sum-and-count", key7)).isEqualTo(Tuple2.of(24L, 2L));
        // Each key needs 3 records; keys of indexes 20..24 have them, the others not yet.
        assertThat(harness.emitted).extracting(Tuple3::f0)
                .containsExactlyInAnyOrder(StreamingKeyedSum.key(20, 10), StreamingKeyedSum.key(21, 10),
                        StreamingKeyedSum.key(22, 10), StreamingKeyedSum.key(23, 10), StreamingKeyedSum.key(24, 10));
        assertThat(harness.emitted).contains(Tuple3.of(key, 3L + 13 + 23, 3L));
    }

    @Test
    void aBoundedRunEmitsEachKeyOnceWithAnExactResult() {
        long records = 1_003; // not a multiple of keys: 3 keys get one record more
        long keys = 10;
        Harness harness = new Harness(records, keys);
        for (long i = 0; i < records; i++) {
            harness.process(record(i, keys));
        }

        assertThat(harness.emitted).hasSize(10);
        assertThat(StreamingKeyedSum.verify(harness.emitted, records, keys)).isEmpty();
        assertThat(harness.emitted.stream().mapToLong(Tuple3::f1).sum()).isEqualTo(records * (records - 1) / 2);
        assertThat(harness.emitted.stream().mapToLong(Tuple3::f2).sum()).isEqualTo(records);
    }

    @Test
    void keysSplitOverInstancesStillEmitOnceEach() {
        // Two instances, as with parallelism 2: each sees all records of its keys and no others.
        long records = 100_000;
        long keys = 1_000;
        Harness even = new Harness(records, keys);
        Harness odd = new Harness(records, keys);
        for (long i = 0; i < records; i++) {
            Tuple2<Long, Long> record = record(i, keys);
            (record.f0() % 2 == 0 ? even : odd).process(record);
        }
        List<Tuple3<Long, Long, Long>> all = new ArrayList<>(even.emitted);
        all.addAll(odd.emitted);

        assertThat(StreamingKeyedSum.verify(all, records, keys)).isEmpty();
    }

    @Test
    void anEndlessRunNeverEmits() {
        Harness harness = new Harness(0, 10);
        for (long i = 0; i < 1_000; i++) {
            harness.process(record(i, 10));
        }

        assertThat(harness.emitted).isEmpty();
        assertThat(harness.<Tuple2<Long, Long>>valueOf("sum-and-count", 0L).f1()).isEqualTo(100L);
    }

    @Test
    void expectedCountsMatchCountingTheKeysOneByOne() {
        for (long keys : new long[] {1, 7, 10, 100_000, 7_920}) {
            for (long records : new long[] {0, 1, keys - 1, keys, 3 * keys + 5, 2 * keys + keys / 2}) {
                Map<Long, Long> counted = new HashMap<>();
                for (long i = 0; i < records; i++) {
                    counted.merge(StreamingKeyedSum.key(i, keys), 1L, Long::sum);
                }
                long inverse = StreamingKeyedSum.inverseOfMultiplier(keys);
                for (long key = 0; key < keys; key++) {
                    assertThat(StreamingKeyedSum.expectedCount(key, records, keys, inverse))
                            .as("key %d of %d, %d records", key, keys, records)
                            .isEqualTo(counted.getOrDefault(key, 0L));
                }
            }
        }
    }

    @Test
    void failAtThrowsInTheFirstAttemptOnlyAndBeforeTheStateChanges() {
        Harness first = new Harness(20, 10, 5, 0);
        for (long i = 0; i < 5; i++) {
            first.process(record(i, 10));
        }
        assertThatThrownBy(() -> first.process(record(5, 10))).hasMessageContaining("injected failure at record 5");
        assertThat(first.<Tuple2<Long, Long>>valueOf("sum-and-count", StreamingKeyedSum.key(5, 10))).isNull();

        Harness restarted = new Harness(20, 10, 5, 1);
        for (long i = 0; i < 20; i++) {
            restarted.process(record(i, 10));
        }
        assertThat(StreamingKeyedSum.verify(restarted.emitted, 20, 10)).isEmpty();
    }

    @Test
    void expectedCountWithoutAPrecomputedInverseAgrees() {
        java.util.Set<Long> keysOfThePartialBlock = new java.util.HashSet<>();
        for (long index = 1_000; index < 1_050; index++) {
            keysOfThePartialBlock.add(index * 7919 % 100);
        }
        for (long key = 0; key < 100; key++) {
            assertThat(StreamingKeyedSum.expectedCount(key, 1_050, 100))
                    .isEqualTo(keysOfThePartialBlock.contains(key) ? 11 : 10);
        }
    }

    @Test
    void keyFormulaIsIndexTimes7919ModKeysWithoutOverflow() {
        assertThat(StreamingKeyedSum.key(12_345, 100_000)).isEqualTo(12_345L * 7919 % 100_000);
        long huge = Long.MAX_VALUE - 1;
        assertThat(StreamingKeyedSum.key(huge, 100_000)).isBetween(0L, 99_999L)
                .isEqualTo(java.math.BigInteger.valueOf(huge).multiply(java.math.BigInteger.valueOf(7919))
                        .mod(java.math.BigInteger.valueOf(100_000)).longValueExact());
    }

    @Test
    void expectedSumOfSumsIsNTimesNMinusOneHalf() {
        assertThat(StreamingKeyedSum.expectedSumOfSums(50_000_000)).isEqualTo(1_249_999_975_000_000L);
        assertThat(StreamingKeyedSum.expectedSumOfSums(7)).isEqualTo(21);
        assertThat(StreamingKeyedSum.expectedSumOfSums(1)).isZero();
        assertThat(StreamingKeyedSum.expectedSumOfSums(0)).isZero();
    }

    @Test
    void verifyNamesMissingDuplicatedAndMiscountedKeys() {
        long records = 20;
        long keys = 10;
        Harness harness = new Harness(records, keys);
        for (long i = 0; i < records; i++) {
            harness.process(record(i, keys));
        }
        List<Tuple3<Long, Long, Long>> sums = new ArrayList<>(harness.emitted);
        assertThat(StreamingKeyedSum.verify(sums, records, keys)).isEmpty();

        Tuple3<Long, Long, Long> first = sums.remove(0);
        assertThat(StreamingKeyedSum.verify(sums, records, keys)).contains("9 keys emitted, expected 10")
                .anyMatch(line -> line.startsWith("sum of sums"));
        sums.add(first);
        sums.add(first);
        assertThat(StreamingKeyedSum.verify(sums, records, keys)).anyMatch(line -> line.contains("emitted twice"));
        sums.remove(sums.size() - 1);
        sums.set(0, Tuple3.of(sums.get(0).f0(), sums.get(0).f1(), 3L));
        assertThat(StreamingKeyedSum.verify(sums, records, keys)).anyMatch(line -> line.contains("counted 3 records"));
    }

    @Test
    void buildsAGeneratorKeyedIntoTheSumAndCompilesAsAStreamingJob() {
        JobBuilder builder = new JobBuilder("x");
        new StreamingKeyedSum().build(builder, new JobParameters(Map.of("records", "1000", "keys", "10", "rate", "500")));

        List<PlanNode> nodes = builder.plan().nodes();
        assertThat(nodes).<Class<?>>extracting(node -> node.operation().getClass())
                .contains(Operation.SourceOp.class, Operation.KeyedProcessOp.class);
        assertThat(nodes).extracting(PlanNode::uid).contains("generate-records", "sum-per-key");
        assertThat(JobGraph.compile(builder.plan(), 2, RuntimeMode.STREAMING).mode()).isEqualTo(RuntimeMode.STREAMING);
    }

    @Test
    void refusesKeysThatAreAMultipleOf7919() {
        assertThatThrownBy(() -> new StreamingKeyedSum().build(new JobBuilder("x"),
                new JobParameters(Map.of("keys", "15838"))))
                .isInstanceOf(InvalidJobParametersException.class).hasMessageContaining("multiple of 7919");
    }

    @Test
    void withOutputTheSumsGoToTheFileSinkAndReadOutputReadsOnlyCommittedParts(@org.junit.jupiter.api.io.TempDir
            java.nio.file.Path dir) throws Exception {
        JobBuilder builder = new JobBuilder("x");
        new StreamingKeyedSum().build(builder, new JobParameters(Map.of("output", dir.toString())));
        assertThat(builder.plan().nodes()).<Class<?>>extracting(node -> node.operation().getClass())
                .contains(Operation.SinkOp.class);

        java.nio.file.Files.writeString(dir.resolve("part-0-a-b-0"), "1,10,2\n2,20,3\n");
        java.nio.file.Files.writeString(dir.resolve(".part-0-a-b-1.inprogress"), "3,30,4\n");
        assertThat(StreamingKeyedSum.readOutput(dir)).containsExactlyInAnyOrder(
                io.duraflow.api.types.Tuple3.of(1L, 10L, 2L), io.duraflow.api.types.Tuple3.of(2L, 20L, 3L));

        java.nio.file.Files.writeString(dir.resolve("part-0-a-b-2"), "oops\n");
        assertThatThrownBy(() -> StreamingKeyedSum.readOutput(dir)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("part-0-a-b-2 line 1");
    }
}
