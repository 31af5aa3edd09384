package io.duraflow.test;

import io.duraflow.api.DuraflowJob;
import io.duraflow.api.Flow;
import io.duraflow.api.JobBuilder;
import io.duraflow.api.JobParameters;
import io.duraflow.api.eventtime.WatermarkStrategy;
import io.duraflow.api.functions.Collector;
import io.duraflow.api.functions.KeyedProcessFunction;
import io.duraflow.api.types.Tuple2;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.api.types.Types;
import java.time.Duration;

/**
 * Two sources in one watermark alignment group (with {@code aligned=true}), one of which makes
 * event time 100 times faster: "slow" emits (0, {@value #SLOW_START_MS} + i) and "fast" (1, 100·i)
 * for i = 0 .. records - 1, both at {@code rate} records per second ({@link PacedSource}). The
 * fast one starts behind the slow one in event time, so it is behind while both start up, and
 * overtakes it after about {@value #SLOW_START_MS} / 100 records.
 *
 * <p>Behind a union, one keyed process function sees both and emits, for each fast record that
 * came after a slow one, (fast timestamp, highest slow timestamp seen so far) as {@value #LAGS}.
 */
public final class AlignedSources implements DuraflowJob {
    public static final String LAGS = "lags";
    static final long SLOW_START_MS = 10_000;
    static final long FAST_MS_PER_RECORD = 100;
    static final Duration MAX_DRIFT = Duration.ofSeconds(2);
    static final Duration UPDATE_INTERVAL = Duration.ofMillis(50);
    private static final TypeSerializer<Tuple2<Long, Long>> RECORD = Types.tuple(Types.LONG, Types.LONG);

    @Override
    public String description() {
        return "a fast and a slow source in one watermark alignment group, and the fast one's lead";
    }

    @Override
    public void build(JobBuilder job, JobParameters params) {
        long records = params.getLong("records", 600, 1, Long.MAX_VALUE);
        long rate = params.getLong("rate", 200, 1, 1_000_000);
        boolean aligned = params.getBoolean("aligned", true);
        job.name("AlignedSources");
        Flow<Tuple2<Long, Long>> slow = job.fromSource("Slow", new PacedSource<>("slow", RECORD,
                i -> Tuple2.of(0L, SLOW_START_MS + i), records, rate), strategy(aligned)).parallelism(1).uid("slow");
        Flow<Tuple2<Long, Long>> fast = job.fromSource("Fast", new PacedSource<>("fast", RECORD,
                i -> Tuple2.of(1L, FAST_MS_PER_RECORD * i), records, rate), strategy(aligned)).parallelism(1)
                .uid("fast");
        slow.union(fast).uid("union").keyBy(r -> 0L, Types.LONG).process(new Lead(), RECORD).uid("lead")
                .parallelism(1).collect(LAGS);
    }

    private static WatermarkStrategy<Tuple2<Long, Long>> strategy(boolean aligned) {
        WatermarkStrategy<Tuple2<Long, Long>> strategy = WatermarkStrategy.<Tuple2<Long, Long>>forMonotonousTimestamps()
                .withTimestampAssigner((r, previous) -> r.f1());
        return aligned ? strategy.withAlignment("sources", MAX_DRIFT, UPDATE_INTERVAL) : strategy;
    }

    /** One key, no checkpoints: the highest slow timestamp seen is a field. */
    static final class Lead extends KeyedProcessFunction<Long, Tuple2<Long, Long>, Tuple2<Long, Long>> {
        private long slowSeen = Long.MIN_VALUE;

        @Override
        public void processElement(Tuple2<Long, Long> record, Context<Long> context,
                Collector<Tuple2<Long, Long>> out) {
            if (record.f0() == 0L) {
                slowSeen = Math.max(slowSeen, record.f1());
            } else if (slowSeen != Long.MIN_VALUE) {
                out.collect(Tuple2.of(record.f1(), slowSeen));
            }
        }
    }
}
