package io.duraflow.test;

import io.duraflow.api.DuraflowJob;
import io.duraflow.api.Flow;
import io.duraflow.api.JobBuilder;
import io.duraflow.api.JobParameters;
import io.duraflow.api.connectors.DataGeneratorSource;
import io.duraflow.api.eventtime.WatermarkStrategy;
import io.duraflow.api.functions.Collector;
import io.duraflow.api.functions.KeyedProcessFunction;
import io.duraflow.api.functions.OutputTag;
import io.duraflow.api.types.Tuple3;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.api.types.Types;

/**
 * Routes numbers 0 .. records-1, each with itself as its event time, by their remainder modulo 3
 * in a keyed process function: 0 to its main output (collected as {@value #MAIN}), 1 to the side
 * output {@link #ONES}, 2 to the side output {@link #TWOS} (collected as {@value #TWOS_RESULT});
 * every number also goes to a side output that nothing reads. The ones are keyed again into
 * {@link TimerAfter}, which sets an event-time timer {@value #DELAY_MS} ms after each one's
 * timestamp, and the timers' (number, time, watermark) are collected as {@value #TIMED}.
 *
 * <p>Parameters: {@code records}, {@code rate} (records per second; 0: unlimited).
 */
public final class SideOutputRouting implements DuraflowJob {
    public static final String MAIN = "threes";
    public static final String TWOS_RESULT = "twos";
    public static final String TIMED = "timed-ones";
    static final OutputTag<Long> ONES = new OutputTag<>("ones", Types.LONG);
    static final OutputTag<String> TWOS = new OutputTag<>("twos", Types.STRING);
    static final OutputTag<String> UNREAD = new OutputTag<>("unread", Types.STRING);
    static final long DELAY_MS = 100;
    private static final TypeSerializer<Tuple3<Long, Long, Long>> TIMED_TYPE =
            Types.tuple(Types.LONG, Types.LONG, Types.LONG);

    @Override
    public String description() {
        return "routes numbers to a main and two side outputs; event-time timers on one side output";
    }

    @Override
    public void build(JobBuilder job, JobParameters params) {
        long records = params.getLong("records", 10_000, 1, Long.MAX_VALUE);
        long rate = params.getLong("rate", DataGeneratorSource.UNLIMITED, 0, Long.MAX_VALUE);
        // One split: a second one could start after the first one's watermark passed its numbers.
        DataGeneratorSource<Long> numbers = DataGeneratorSource.of("numbers", Types.LONG, i -> i).withCount(records)
                .withSplits(1).withRate(rate);
        Flow<Long> routed = job.fromSource("Numbers", numbers,
                        WatermarkStrategy.<Long>forMonotonousTimestamps().withTimestampAssigner((n, previous) -> n))
                .keyBy(n -> n % 7, Types.LONG).process(new Route(), Types.LONG).name("Route");
        routed.collect(MAIN);
        routed.sideOutput(TWOS).collect(TWOS_RESULT);
        routed.sideOutput(ONES).keyBy(n -> n, Types.LONG).process(new TimerAfter(), TIMED_TYPE).name("Timer after")
                .collect(TIMED);
    }

    static final class Route extends KeyedProcessFunction<Long, Long, Long> {
        @Override
        public void processElement(Long n, Context<Long> context, Collector<Long> out) {
            if (n % 3 == 0) {
                out.collect(n);
            } else if (n % 3 == 1) {
                context.output(ONES, n);
            } else {
                context.output(TWOS, "two " + n);
            }
            context.output(UNREAD, "nobody reads " + n);
        }
    }

    /** A timer {@value #DELAY_MS} ms after each record's timestamp, which must be the record's own number. */
    static final class TimerAfter extends KeyedProcessFunction<Long, Long, Tuple3<Long, Long, Long>> {
        @Override
        public void processElement(Long n, Context<Long> context, Collector<Tuple3<Long, Long, Long>> out) {
            if (context.timestamp() != n) {
                throw new IllegalStateException("side output record " + n + " has the timestamp " + context.timestamp());
            }
            context.timerService().registerEventTimeTimer(n + DELAY_MS);
        }

        @Override
        public void onTimer(long timestamp, Context<Long> context, Collector<Tuple3<Long, Long, Long>> out) {
            out.collect(Tuple3.of(context.currentKey(), timestamp, context.timerService().currentWatermark()));
        }
    }
}
