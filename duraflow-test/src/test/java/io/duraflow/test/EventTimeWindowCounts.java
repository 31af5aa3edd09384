package io.duraflow.test;

import io.duraflow.api.DuraflowJob;
import io.duraflow.api.Flow;
import io.duraflow.api.InvalidJobParametersException;
import io.duraflow.api.JobBuilder;
import io.duraflow.api.KeyedFlow;
import io.duraflow.api.JobParameters;
import io.duraflow.api.connectors.DataGeneratorSource;
import io.duraflow.api.connectors.FileSink;
import io.duraflow.api.eventtime.TimestampAssigner;
import io.duraflow.api.eventtime.WatermarkStrategy;
import io.duraflow.api.functions.AggregateFunction;
import io.duraflow.api.functions.Collector;
import io.duraflow.api.functions.KeyedProcessFunction;
import io.duraflow.api.functions.RuntimeContext;
import io.duraflow.api.functions.TimeDomain;
import io.duraflow.api.state.MapState;
import io.duraflow.api.state.MapStateDescriptor;
import io.duraflow.api.types.Tuple2;
import io.duraflow.api.types.Tuple3;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.api.types.Types;
import io.duraflow.api.windowing.ProcessWindowFunction;
import io.duraflow.api.windowing.TimeWindow;
import io.duraflow.api.windowing.TumblingEventTimeWindows;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Counts records per key per 1-second tumbling event-time window with keyed state and event-time
 * timers: a generated record i has key {@link #key} and event time {@link #timestamp} (out of
 * order by up to {@value #JITTER_MS} ms, under the watermark bound of {@value
 * #OUT_OF_ORDERNESS_MS} ms, so no record is late). Each window's count is emitted once, as (key,
 * window start, count), by the timer at its end.
 *
 * <p>The records come from one split, so in index order up to the jitter.
 *
 * <p>Parameters: {@code implementation} ({@code timers}, the default, for the keyed process
 * function below; {@code windows} for the same counts with the window API), {@code records}, {@code keys}, {@code rate} (records per second over all readers,
 * as {@link DataGeneratorSource} counts it: the one reader with the split gets rate / parallelism;
 * 0: unlimited), {@code output} (a directory for the exactly-once {@link FileSink}, one
 * line {@code key,start,count} each; without it the results are collected as {@value #RESULT}).
 */
public final class EventTimeWindowCounts implements DuraflowJob {
    public static final String RESULT = "window-counts";
    public static final long WINDOW_MS = 1_000;
    static final long JITTER_MS = 40;
    static final long OUT_OF_ORDERNESS_MS = 50;
    /** What a late record would be counted as: it makes the exact comparison fail. */
    static final long LATE = -1;
    private static final TypeSerializer<Tuple2<Long, Long>> RECORD = Types.tuple(Types.LONG, Types.LONG);
    private static final TypeSerializer<Tuple3<Long, Long, Long>> RESULT_TYPE =
            Types.tuple(Types.LONG, Types.LONG, Types.LONG);

    public static long key(long index, long keys) {
        return index % keys;
    }

    /** One millisecond per record, less a jitter of 0 .. {@value #JITTER_MS} - 1 ms. */
    public static long timestamp(long index) {
        return index - (index * 31 % JITTER_MS);
    }

    /** The lines a correct run emits ({@link #formatLine}), computed directly, sorted. */
    public static List<String> expectedLines(long records, long keys) {
        Map<String, Long> counts = new TreeMap<>();
        for (long i = 0; i < records; i++) {
            counts.merge(key(i, keys) + "," + windowStart(timestamp(i)), 1L, Long::sum);
        }
        List<String> lines = new ArrayList<>();
        counts.forEach((window, count) -> lines.add(window + "," + count));
        return lines.stream().sorted().toList();
    }

    static long windowStart(long timestamp) {
        return timestamp - Math.floorMod(timestamp, WINDOW_MS);
    }

    @Override
    public String description() {
        return "counts per key per 1-second tumbling event-time window, with keyed state and event-time timers";
    }

    @Override
    public void build(JobBuilder job, JobParameters params) {
        long records = params.getLong("records", 10_000, 1, Long.MAX_VALUE);
        long keys = params.getLong("keys", 7, 1, Integer.MAX_VALUE);
        long rate = params.getLong("rate", DataGeneratorSource.UNLIMITED, 0, Long.MAX_VALUE);
        job.name("EventTimeWindowCounts");
        DataGeneratorSource<Tuple2<Long, Long>> source = DataGeneratorSource
                .of("timed-records(keys=" + keys + ")", RECORD, i -> Tuple2.of(key(i, keys), timestamp(i)))
                .withCount(records).withSplits(1).withRate(rate);
        KeyedFlow<Tuple2<Long, Long>, Long> keyed = job.fromSource("Generate records", source,
                        WatermarkStrategy.<Tuple2<Long, Long>>forBoundedOutOfOrderness(
                                Duration.ofMillis(OUT_OF_ORDERNESS_MS)).withTimestampAssigner((r, previous) -> r.f1()))
                .uid("generate-timed-records")
                .keyBy(Tuple2::f0, Types.LONG);
        Flow<Tuple3<Long, Long, Long>> counts = switch (params.getString("implementation", "timers")) {
            case "timers" -> keyed.process(new CountPerWindow(), RESULT_TYPE);
            case "windows" -> keyed.window(TumblingEventTimeWindows.of(Duration.ofMillis(WINDOW_MS)))
                    .aggregate(new Count(), new WithKeyAndStart(), Types.LONG, RESULT_TYPE);
            default -> throw new InvalidJobParametersException("implementation must be timers or windows, got '"
                    + params.getString("implementation", "") + "'");
        };
        counts.name("Count per window").uid("count-per-window");
        if (params.has("output")) {
            counts.sinkTo("Write counts", new FileSink<Tuple3<Long, Long, Long>>(params.getRequired("output"),
                    EventTimeWindowCounts::formatLine));
        } else {
            counts.collect(RESULT);
        }
    }

    static final class Count implements AggregateFunction<Tuple2<Long, Long>, Long, Long> {
        @Override
        public Long createAccumulator() {
            return 0L;
        }

        @Override
        public Long add(Long count, Tuple2<Long, Long> record) {
            return count + 1;
        }

        @Override
        public Long merge(Long a, Long b) {
            return a + b;
        }

        @Override
        public Long getResult(Long count) {
            return count;
        }
    }

    static final class WithKeyAndStart extends ProcessWindowFunction<Long, Tuple3<Long, Long, Long>, Long, TimeWindow> {
        @Override
        public void process(Long key, Context<TimeWindow> context, Iterable<Long> counts,
                Collector<Tuple3<Long, Long, Long>> out) {
            out.collect(Tuple3.of(key, context.window().start(), counts.iterator().next()));
        }
    }

    public static String formatLine(Tuple3<Long, Long, Long> count) {
        return count.f0() + "," + count.f1() + "," + count.f2();
    }

    /**
     * Per key, the count of each open window in a map state (window end -> count) and a timer at
     * each window's end; the timer emits the window's count and clears it.
     */
    static final class CountPerWindow extends KeyedProcessFunction<Long, Tuple2<Long, Long>, Tuple3<Long, Long, Long>> {
        private transient MapState<Long, Long> counts;

        @Override
        public void open(RuntimeContext context) {
            counts = context.state().getMapState(new MapStateDescriptor<>("counts", Types.LONG, Types.LONG));
        }

        @Override
        public void processElement(Tuple2<Long, Long> record, Context<Long> context,
                Collector<Tuple3<Long, Long, Long>> out) {
            long timestamp = context.timestamp();
            if (timestamp == TimestampAssigner.NO_TIMESTAMP) {
                throw new IllegalStateException("record " + record + " has no timestamp");
            }
            long end = windowStart(timestamp) + WINDOW_MS - 1;
            if (end <= context.timerService().currentWatermark()) {
                out.collect(Tuple3.of(context.currentKey(), windowStart(timestamp), LATE));
                return;
            }
            Long count = counts.get(end);
            if (count == null) {
                context.timerService().registerEventTimeTimer(end);
            }
            counts.put(end, count == null ? 1 : count + 1);
        }

        @Override
        public void onTimer(long end, Context<Long> context, Collector<Tuple3<Long, Long, Long>> out) {
            if (context.timeDomain() != TimeDomain.EVENT_TIME || context.timestamp() != end) {
                throw new IllegalStateException("a window timer fired as " + context.timeDomain() + " with timestamp "
                        + context.timestamp() + " at " + end);
            }
            out.collect(Tuple3.of(context.currentKey(), end - WINDOW_MS + 1, counts.get(end)));
            counts.remove(end);
        }
    }
}
