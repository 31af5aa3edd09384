package io.duraflow.taskmanager.task.streaming;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.api.Flow;
import io.duraflow.api.JobBuilder;
import io.duraflow.api.KeyedFlow;
import io.duraflow.api.dag.Operation;
import io.duraflow.api.dag.PlanNode;
import io.duraflow.api.functions.AggregateFunction;
import io.duraflow.api.functions.Collector;
import io.duraflow.api.functions.KeyedProcessFunction;
import io.duraflow.api.types.Tuple3;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.api.types.Types;
import io.duraflow.api.windowing.EventTimeSessionWindows;
import io.duraflow.api.windowing.ProcessWindowFunction;
import io.duraflow.api.windowing.SlidingEventTimeWindows;
import io.duraflow.api.windowing.TimeWindow;
import io.duraflow.api.windowing.TumblingEventTimeWindows;
import io.duraflow.api.windowing.WindowAssigner;
import io.duraflow.api.WindowedFlow;
import io.duraflow.config.Configuration;
import io.duraflow.state.KeyGroupRange;
import io.duraflow.state.OperatorSubtaskState;
import io.duraflow.state.backend.StateBackend;
import io.duraflow.state.heap.HeapStateBackend;
import io.duraflow.state.rescale.StateRedistributor;
import io.duraflow.state.rocksdb.RocksDBStateBackend;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A seeded simulation of event-time windows on the real operator and backends: keyed records out
 * of order, watermarks, records later than the watermark, checkpoints, and crashes that restore
 * the last checkpoint at another parallelism and replay the input after it (discarding what was
 * emitted since, as an exactly-once sink does). Every window's emissions must equal a plain
 * computation over the same input: the on-time result, then one more for each record accepted
 * within the allowed lateness.
 */
class WindowSimulationTest {
    private static final long KEYS = 5;
    private static final long OUT_OF_ORDER = 12;
    private static final TypeSerializer<Tuple3<Long, Long, Long>> TRIPLE = Types.tuple(Types.LONG, Types.LONG, Types.LONG);
    private static final io.duraflow.api.functions.OutputTag<Tuple3<Long, Long, Long>> LATE =
            new io.duraflow.api.functions.OutputTag<>(KeyedOperatorHarness.LATE, TRIPLE);
    /** The key under which the results map holds the late records' ids. */
    private static final String LATE_RECORDS = "late records";

    enum Shape { TUMBLING, SLIDING, SESSION }

    enum Function { AGGREGATE, PROCESS, REDUCE }

    /** A record (key, id, timestamp) or, when {@code watermark}, a watermark at {@code timestamp}. */
    record Input(boolean watermark, long key, long id, long timestamp) {}

    @TempDir
    Path dir;

    @Test
    void tumblingWindowsOnTheHeap() throws Exception {
        simulate(new HeapStateBackend(), Shape.TUMBLING, 12);
    }

    @Test
    void slidingWindowsOnTheHeap() throws Exception {
        simulate(new HeapStateBackend(), Shape.SLIDING, 12);
    }

    @Test
    void sessionWindowsOnTheHeap() throws Exception {
        simulate(new HeapStateBackend(), Shape.SESSION, 12);
    }

    @Test
    void everyShapeInRocksDB() throws Exception {
        // Each RocksDB instance takes a while to open: one run per shape, each with another function.
        RocksDBStateBackend rocksdb = new RocksDBStateBackend(new Configuration());
        simulate(rocksdb, Shape.TUMBLING, 1, Function.PROCESS);
        simulate(rocksdb, Shape.SLIDING, 1, Function.AGGREGATE);
        simulate(rocksdb, Shape.SESSION, 1, Function.PROCESS);
    }

    private void simulate(StateBackend backend, Shape shape, int seeds) throws Exception {
        simulate(backend, shape, seeds, Function.values());
    }

    private void simulate(StateBackend backend, Shape shape, int seeds, Function... functions) throws Exception {
        int crashesBefore = crashes;
        long refirings = 0;
        long lateRecords = 0;
        for (int seed = 0; seed < seeds; seed++) {
            for (Function function : functions) {
                long lateness = shape == Shape.SESSION || (seed + function.ordinal()) % 2 == 0 ? 0 : 15;
                Random random = new Random(seed * 31L + shape.ordinal() * 7L + function.ordinal());
                List<Input> input = generate(random, shape != Shape.SESSION, 300);
                String run = shape + " " + function + " seed " + seed + " lateness " + lateness;
                Map<String, List<String>> actual = run(backend, shape, function, lateness, input, random, run);
                Map<String, List<String>> expected = expected(shape, lateness, input);
                assertThat(actual).as(run).isEqualTo(expected);
                refirings += expected.entrySet().stream()
                        .filter(e -> !e.getKey().equals(LATE_RECORDS) && e.getValue().size() > 1).count();
                lateRecords += expected.getOrDefault(LATE_RECORDS, List.of()).size();
            }
        }
        assertThat(crashes).as("crashes simulated").isGreaterThan(crashesBefore);
        if (shape != Shape.SESSION && seeds > 1) {
            assertThat(lateRecords).as("late records sent to the side output").isPositive();
        }
        if (shape != Shape.SESSION && seeds > 1) {
            assertThat(refirings).as("windows fired again by records within the allowed lateness").isPositive();
        }
    }

    /** Crashes simulated so far, to check that the runs do restore. */
    private int crashes;

    /** Keys 0..4, time moving forward with out-of-order timestamps, watermarks, and some late records. */
    static List<Input> generate(Random random, boolean lateRecords, int records) {
        List<Input> input = new ArrayList<>();
        long base = 100;
        long maxTimestamp = Long.MIN_VALUE;
        long watermark = Long.MIN_VALUE;
        for (long id = 0; id < records; id++) {
            base += random.nextInt(4) + (random.nextInt(25) == 0 ? 30 : 0);
            long timestamp = base - random.nextInt((int) OUT_OF_ORDER + 1);
            if (lateRecords && watermark > Long.MIN_VALUE && random.nextInt(15) == 0) {
                timestamp = watermark - random.nextInt(40); // at or below the watermark: late, or within lateness
            }
            input.add(new Input(false, random.nextInt((int) KEYS), id, timestamp));
            maxTimestamp = Math.max(maxTimestamp, timestamp);
            if (random.nextInt(4) == 0 && maxTimestamp - OUT_OF_ORDER - 1 > watermark) {
                watermark = maxTimestamp - OUT_OF_ORDER - 1;
                input.add(new Input(true, 0, 0, watermark));
            }
        }
        input.add(new Input(true, 0, 0, Long.MAX_VALUE));
        return input;
    }

    // ---- the run ------------------------------------------------------------------------

    /** The checkpoint a crash goes back to: each subtask's state, the input position, the output so far. */
    private record Checkpoint(List<OperatorSubtaskState> state, long id, int position, int emitted, int late,
            long watermark) {}

    private Map<String, List<String>> run(StateBackend backend, Shape shape, Function function, long lateness,
            List<Input> input, Random random, String run) throws Exception {
        List<String> emitted = new ArrayList<>();
        List<Long> late = new ArrayList<>();
        List<KeyedOperatorHarness<Long>> subtasks = open(backend, shape, function, lateness, 1 + random.nextInt(2),
                null, -1, Long.MIN_VALUE);
        Checkpoint checkpoint = null;
        int crashesOfRun = 0;
        long watermark = Long.MIN_VALUE;
        int position = 0;
        while (position < input.size()) {
            Input next = input.get(position);
            if (next.watermark()) {
                watermark = next.timestamp();
                for (KeyedOperatorHarness<Long> subtask : subtasks) {
                    subtask.processWatermark(watermark);
                }
            } else {
                owner(subtasks, next.key()).processElement(Tuple3.of(next.key(), 1L, next.id()), next.timestamp());
            }
            drain(subtasks, emitted, late);
            position++;
            int dice = random.nextInt(60);
            if (dice == 0) {
                List<OperatorSubtaskState> state = new ArrayList<>();
                for (KeyedOperatorHarness<Long> subtask : subtasks) {
                    state.add(new OperatorSubtaskState(subtask.snapshot(), List.of()));
                }
                checkpoint = new Checkpoint(state, subtasks.get(0).lastCheckpointId(), position, emitted.size(),
                        late.size(), watermark);
            } else if (dice == 1 && checkpoint != null && crashesOfRun < 3 && position < input.size() - 1) {
                crashesOfRun++;
                crashes++;
                for (KeyedOperatorHarness<Long> subtask : subtasks) {
                    subtask.close();
                }
                int parallelism = 1 + random.nextInt(3);
                subtasks = open(backend, shape, function, lateness, parallelism,
                        StateRedistributor.redistribute(checkpoint.state(), parallelism,
                                KeyedOperatorHarness.MAX_PARALLELISM), checkpoint.id(), checkpoint.watermark());
                emitted.subList(checkpoint.emitted(), emitted.size()).clear();
                late.subList(checkpoint.late(), late.size()).clear();
                position = checkpoint.position();
                watermark = checkpoint.watermark();
            }
        }
        for (KeyedOperatorHarness<Long> subtask : subtasks) {
            subtask.close();
        }
        Map<String, List<String>> byWindow = new TreeMap<>();
        if (!late.isEmpty()) {
            byWindow.put(LATE_RECORDS, late.stream().sorted().map(String::valueOf).toList());
        }
        for (String line : emitted) {
            byWindow.computeIfAbsent(line.substring(0, line.indexOf(' ', line.indexOf(' ') + 1)),
                    k -> new ArrayList<>()).add(line);
        }
        return byWindow;
    }

    private List<KeyedOperatorHarness<Long>> open(StateBackend backend, Shape shape, Function function,
            long lateness, int parallelism, List<OperatorSubtaskState> restore, long checkpointId, long watermark)
            throws Exception {
        List<KeyedOperatorHarness<Long>> subtasks = new ArrayList<>();
        for (int i = 0; i < parallelism; i++) {
            KeyGroupRange range = KeyGroupRange.ofOperatorIndex(KeyedOperatorHarness.MAX_PARALLELISM, parallelism, i);
            KeyedOperatorHarness<Long> subtask = new KeyedOperatorHarness<>(backend, dir,
                    (io.duraflow.api.functions.KeySelector<Tuple3<Long, Long, Long>, Long>) Tuple3::f0, Types.LONG,
                    windowFunction(shape, function, lateness), range,
                    restore == null ? List.of() : restore.get(i).keyedState(), checkpointId, 0);
            if (watermark > Long.MIN_VALUE) {
                // The input's watermark at the checkpoint, as an upstream that restarts emits it again.
                subtask.processWatermark(watermark);
            }
            subtasks.add(subtask);
        }
        return subtasks;
    }

    private static KeyedOperatorHarness<Long> owner(List<KeyedOperatorHarness<Long>> subtasks, long key) {
        int index = KeyGroupRange.operatorIndexOf(KeyedOperatorHarness.MAX_PARALLELISM, subtasks.size(),
                io.duraflow.util.Murmur.keyGroupOfLong(key, KeyedOperatorHarness.MAX_PARALLELISM));
        return subtasks.get(index);
    }

    @SuppressWarnings("unchecked")
    private static void drain(List<KeyedOperatorHarness<Long>> subtasks, List<String> emitted, List<Long> late) {
        for (KeyedOperatorHarness<Long> subtask : subtasks) {
            for (KeyedOperatorHarness.Emitted out : subtask.drainLate()) {
                late.add(((Tuple3<Long, Long, Long>) out.record()).f2());
            }
            for (KeyedOperatorHarness.Emitted out : subtask.drainOutput()) {
                Tuple3<Long, Long, Long> result = (Tuple3<Long, Long, Long>) out.record();
                emitted.add(line(result.f0(), out.timestamp() + 1, result.f1(), result.f2()));
            }
        }
    }

    private static String line(long key, long end, long count, long sum) {
        return "key=" + key + " end=" + end + " count=" + count + " sum=" + sum;
    }

    /** The window operator under test, as the API builds it; its results are (key, count, sum of ids). */
    @SuppressWarnings("unchecked")
    private static KeyedProcessFunction<Long, ?, ?> windowFunction(Shape shape, Function function, long lateness) {
        JobBuilder job = new JobBuilder("simulation");
        KeyedFlow<Tuple3<Long, Long, Long>, Long> keyed = job.fromSource("numbers", new io.duraflow.api.connectors.SequenceSource(0, 1, 1)).map(
                n -> Tuple3.of(n, 1L, n), TRIPLE).keyBy(Tuple3::f0, Types.LONG);
        WindowAssigner<Object, TimeWindow> assigner = switch (shape) {
            case TUMBLING -> TumblingEventTimeWindows.of(Duration.ofMillis(10));
            case SLIDING -> SlidingEventTimeWindows.of(Duration.ofMillis(20), Duration.ofMillis(5));
            case SESSION -> EventTimeSessionWindows.withGap(Duration.ofMillis(7));
        };
        WindowedFlow<Tuple3<Long, Long, Long>, Long, TimeWindow> windowed = keyed.window(assigner)
                .allowedLateness(Duration.ofMillis(lateness)).sideOutputLateData(LATE);
        Flow<Tuple3<Long, Long, Long>> result = switch (function) {
            case REDUCE -> windowed.reduce((a, b) -> Tuple3.of(a.f0(), a.f1() + b.f1(), a.f2() + b.f2()));
            case AGGREGATE -> windowed.aggregate(new CountAndSum(), new KeyInFront(), TRIPLE, TRIPLE);
            case PROCESS -> windowed.process(new CountAndSumOfAll(), TRIPLE);
        };
        result.collect("out");
        PlanNode node = job.plan().nodes().get(job.plan().nodes().size() - 2);
        return (KeyedProcessFunction<Long, ?, ?>) (Object) ((Operation.KeyedProcessOp) node.operation()).function();
    }

    static final class CountAndSum implements AggregateFunction<Tuple3<Long, Long, Long>, Tuple3<Long, Long, Long>,
            Tuple3<Long, Long, Long>> {
        @Override
        public Tuple3<Long, Long, Long> createAccumulator() {
            return Tuple3.of(0L, 0L, 0L);
        }

        @Override
        public Tuple3<Long, Long, Long> add(Tuple3<Long, Long, Long> acc, Tuple3<Long, Long, Long> value) {
            return Tuple3.of(0L, acc.f1() + 1, acc.f2() + value.f2());
        }

        @Override
        public Tuple3<Long, Long, Long> merge(Tuple3<Long, Long, Long> a, Tuple3<Long, Long, Long> b) {
            return Tuple3.of(0L, a.f1() + b.f1(), a.f2() + b.f2());
        }

        @Override
        public Tuple3<Long, Long, Long> getResult(Tuple3<Long, Long, Long> acc) {
            return acc;
        }
    }

    /** Puts the key into the aggregate's result, and checks the window it is told. */
    static final class KeyInFront extends ProcessWindowFunction<Tuple3<Long, Long, Long>, Tuple3<Long, Long, Long>,
            Long, TimeWindow> {
        @Override
        public void process(Long key, Context<TimeWindow> context, Iterable<Tuple3<Long, Long, Long>> elements,
                Collector<Tuple3<Long, Long, Long>> out) {
            Tuple3<Long, Long, Long> only = elements.iterator().next();
            out.collect(Tuple3.of(key, only.f1(), only.f2()));
        }
    }

    static final class CountAndSumOfAll extends ProcessWindowFunction<Tuple3<Long, Long, Long>,
            Tuple3<Long, Long, Long>, Long, TimeWindow> {
        @Override
        public void process(Long key, Context<TimeWindow> context, Iterable<Tuple3<Long, Long, Long>> elements,
                Collector<Tuple3<Long, Long, Long>> out) {
            long count = 0;
            long sum = 0;
            for (Tuple3<Long, Long, Long> element : elements) {
                count++;
                sum += element.f2();
            }
            out.collect(Tuple3.of(key, count, sum));
        }
    }

    // ---- the plain computation ----------------------------------------------------------

    /**
     * Per (key, window end), the results in order. A record is accepted into a window when the
     * window's end plus the lateness is still above the watermark at its arrival. A window fires
     * once the watermark passes its max timestamp (if it has records by then), then once per record
     * accepted after that. Sessions are kept per key as intervals, merged when they touch, fired and
     * dropped when the watermark passes their end.
     */
    static Map<String, List<String>> expected(Shape shape, long lateness, List<Input> input) {
        Map<String, List<String>> byWindow = new TreeMap<>();
        if (shape == Shape.SESSION) {
            sessions(input, byWindow);
            return byWindow;
        }
        long size = shape == Shape.TUMBLING ? 10 : 20;
        long slide = shape == Shape.TUMBLING ? 10 : 5;
        Map<String, long[]> windows = new HashMap<>(); // key+end -> count, sum
        List<Long> late = new ArrayList<>();
        Map<String, Long> maxTimestamps = new HashMap<>();
        long watermark = Long.MIN_VALUE;
        List<String[]> firings = new ArrayList<>(); // fired in watermark order: key, end
        for (Input in : input) {
            if (in.watermark()) {
                long previous = watermark;
                watermark = in.timestamp();
                for (Map.Entry<String, Long> window : new TreeMap<>(maxTimestamps).entrySet()) {
                    long max = window.getValue();
                    if (max > previous && max <= watermark) {
                        long[] contents = windows.get(window.getKey());
                        add(byWindow, window.getKey(), contents);
                    }
                }
                continue;
            }
            boolean accepted = false;
            for (long start = TimeWindow.windowStart(in.timestamp(), 0, slide); start > in.timestamp() - size;
                    start -= slide) {
                long max = start + size - 1;
                if (max + lateness <= watermark) {
                    continue; // late for this window
                }
                accepted = true;
                String id = "key=" + in.key() + " end=" + (start + size);
                long[] contents = windows.computeIfAbsent(id, k -> new long[2]);
                contents[0]++;
                contents[1] += in.id();
                maxTimestamps.put(id, max);
                if (max <= watermark) {
                    add(byWindow, id, contents); // a late firing within the lateness
                }
            }
            if (!accepted) {
                late.add(in.id()); // for every window it belongs to, too late
            }
        }
        if (!late.isEmpty()) {
            byWindow.put(LATE_RECORDS, late.stream().sorted().map(String::valueOf).toList());
        }
        return byWindow;
    }

    private static void add(Map<String, List<String>> byWindow, String id, long[] contents) {
        byWindow.computeIfAbsent(id, k -> new ArrayList<>()).add(id + " count=" + contents[0] + " sum=" + contents[1]);
    }

    private static void sessions(List<Input> input, Map<String, List<String>> byWindow) {
        Map<Long, List<long[]>> live = new HashMap<>(); // key -> sessions {start, end, count, sum}
        for (Input in : input) {
            if (in.watermark()) {
                for (Map.Entry<Long, List<long[]>> key : new TreeMap<>(live).entrySet()) {
                    key.getValue().removeIf(session -> {
                        if (session[1] - 1 <= in.timestamp()) {
                            add(byWindow, "key=" + key.getKey() + " end=" + session[1],
                                    new long[] {session[2], session[3]});
                            return true;
                        }
                        return false;
                    });
                }
                continue;
            }
            long[] merged = {in.timestamp(), in.timestamp() + 7, 1, in.id()};
            List<long[]> sessions = live.computeIfAbsent(in.key(), k -> new ArrayList<>());
            sessions.removeIf(session -> {
                if (session[0] <= merged[1] && session[1] >= merged[0]) {
                    merged[0] = Math.min(merged[0], session[0]);
                    merged[1] = Math.max(merged[1], session[1]);
                    merged[2] += session[2];
                    merged[3] += session[3];
                    return true;
                }
                return false;
            });
            sessions.add(merged);
        }
    }
}
