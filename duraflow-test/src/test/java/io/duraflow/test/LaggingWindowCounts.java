package io.duraflow.test;

import io.duraflow.api.DuraflowJob;
import io.duraflow.api.JobBuilder;
import io.duraflow.api.JobParameters;
import io.duraflow.api.functions.Collector;
import io.duraflow.api.functions.KeyedCoProcessFunction;
import io.duraflow.api.functions.KeyedProcessFunction.Context;
import io.duraflow.api.functions.RuntimeContext;
import io.duraflow.api.functions.TimeDomain;
import io.duraflow.api.state.MapState;
import io.duraflow.api.state.MapStateDescriptor;
import io.duraflow.api.types.Tuple2;
import io.duraflow.api.types.Tuple3;
import io.duraflow.api.types.Types;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Counts the left and the right {@link LaggingEvents} per key per 1-second event-time window in
 * a keyed co-process function, with an event-time timer at each window's end that emits {@code
 * key,start,left count,right count}. The right flow's watermark lags a second behind the left's:
 * a timer that fired by the left one alone would miss the window's right records, which would come
 * late (emitted as {@code key,start,late}). Parameters: {@code records}, {@code keys},
 * {@code rate} (events per second over all readers; 0: unlimited).
 */
public final class LaggingWindowCounts implements DuraflowJob {
    public static final String RESULT = "window-counts";
    static final long WINDOW_MS = 1_000;

    @Override
    public String description() {
        return "counts two flows per key and window in a keyed co-process function with event-time timers";
    }

    @Override
    public void build(JobBuilder job, JobParameters params) {
        long records = params.getLong("records", 10_000, 1, Long.MAX_VALUE);
        long keys = params.getLong("keys", 7, 1, Integer.MAX_VALUE);
        job.name("LaggingWindowCounts");
        long rate = params.getLong("rate", 0, 0, Long.MAX_VALUE);
        var flows = LaggingEvents.flows(job, records, keys, rate);
        flows[0].connect(flows[1]).process(new CountBothPerWindow(), Types.STRING).uid("count").collect(RESULT);
    }

    static long windowStart(long timestamp) {
        return timestamp - Math.floorMod(timestamp, WINDOW_MS);
    }

    /** The lines a correct run emits, counted directly over the generated events, sorted. */
    public static List<String> expectedLines(long records, long keys) {
        Map<String, long[]> counts = new TreeMap<>();
        for (long i = 0; i < records; i++) {
            long[] count = counts.computeIfAbsent(LaggingEvents.key(i, keys) + ","
                    + windowStart(LaggingEvents.timestamp(i)), window -> new long[2]);
            count[(int) LaggingEvents.side(i)]++;
        }
        return counts.entrySet().stream().map(e -> e.getKey() + "," + e.getValue()[0] + "," + e.getValue()[1])
                .sorted().toList();
    }

    /** Per key: window end -> (left count, right count), and a timer at each window's end. */
    static final class CountBothPerWindow extends KeyedCoProcessFunction<Long, Tuple3<Long, Long, Long>,
            Tuple3<Long, Long, Long>, String> {
        private transient MapState<Long, Tuple2<Long, Long>> counts;

        @Override
        public void open(RuntimeContext context) {
            counts = context.state().getMapState(new MapStateDescriptor<>("counts", Types.LONG,
                    Types.tuple(Types.LONG, Types.LONG)));
        }

        @Override
        public void processElement1(Tuple3<Long, Long, Long> event, Context<Long> context, Collector<String> out) {
            count(context, 1, 0, out);
        }

        @Override
        public void processElement2(Tuple3<Long, Long, Long> event, Context<Long> context, Collector<String> out) {
            count(context, 0, 1, out);
        }

        private void count(Context<Long> context, long left, long right, Collector<String> out) {
            long start = windowStart(context.timestamp());
            long end = start + WINDOW_MS - 1;
            if (end <= context.timerService().currentWatermark()) {
                out.collect(context.currentKey() + "," + start + ",late");
                return;
            }
            Tuple2<Long, Long> count = counts.get(end);
            if (count == null) {
                context.timerService().registerEventTimeTimer(end);
                count = Tuple2.of(0L, 0L);
            }
            counts.put(end, Tuple2.of(count.f0() + left, count.f1() + right));
        }

        @Override
        public void onTimer(long end, Context<Long> context, Collector<String> out) {
            if (context.timeDomain() != TimeDomain.EVENT_TIME) {
                throw new IllegalStateException("a window timer fired as " + context.timeDomain());
            }
            Tuple2<Long, Long> count = counts.get(end);
            out.collect(context.currentKey() + "," + (end - WINDOW_MS + 1) + "," + count.f0() + "," + count.f1());
            counts.remove(end);
        }
    }
}
