package io.duraflow.test;

import io.duraflow.api.Flow;
import io.duraflow.api.JobBuilder;
import io.duraflow.api.KeyedFlow;
import io.duraflow.api.connectors.DataGeneratorSource;
import io.duraflow.api.eventtime.WatermarkStrategy;
import io.duraflow.api.types.Tuple3;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.api.types.Types;
import java.time.Duration;

/**
 * Generated events of two kinds, left and right, cut into two keyed flows with timestamps and
 * watermarks of their own: the right events' event time lags {@value #RIGHT_LAG_MS} ms behind the
 * left ones', so the right flow's watermark is about that far behind. An operator of both must
 * wait for the lower of the two: by the left one alone, most right records would be late.
 *
 * <p>Event {@code i} is {@code (side, key, i)}, its timestamp {@link #timestamp}: out of order by
 * up to {@value #JITTER_MS} ms, under the watermark bound of {@value #OUT_OF_ORDERNESS_MS} ms,
 * so no record is late. Both flows come from one source, so neither starts reading after the
 * other's watermark passed its first records. Watermarks are emitted every 200 ms of processing
 * time: the events must come at a limited rate for many to be emitted before the end of input.
 */
final class LaggingEvents {
    static final long JITTER_MS = 40;
    static final long OUT_OF_ORDERNESS_MS = 50;
    static final long RIGHT_LAG_MS = 1_000;
    static final long LEFT = 0;
    static final long RIGHT = 1;
    static final TypeSerializer<Tuple3<Long, Long, Long>> EVENT = Types.tuple(Types.LONG, Types.LONG, Types.LONG);

    private LaggingEvents() {}

    /** Left for two in five events, right for the others. */
    static long side(long index) {
        return index * 37 % 5 < 2 ? LEFT : RIGHT;
    }

    static long key(long index, long keys) {
        return (index * 13 + index / 7) % keys;
    }

    /** One millisecond per event, less a jitter, and less the lag for a right event. */
    static long timestamp(long index) {
        long timestamp = index - (index * 31 % JITTER_MS);
        return side(index) == RIGHT ? timestamp - RIGHT_LAG_MS : timestamp;
    }

    /** The left flow (input 0 when connected) and the right one, each keyed by the event's key. */
    @SuppressWarnings("unchecked")
    static KeyedFlow<Tuple3<Long, Long, Long>, Long>[] flows(JobBuilder job, long records, long keys, long rate) {
        DataGeneratorSource<Tuple3<Long, Long, Long>> source = DataGeneratorSource
                .of("lagging-events(keys=" + keys + ")", EVENT, i -> Tuple3.of(side(i), key(i, keys), i))
                .withCount(records).withSplits(2).withRate(rate);
        Flow<Tuple3<Long, Long, Long>> events = job.fromSource("Generate events", source).uid("generate-events");
        return new KeyedFlow[] {side(events, LEFT), side(events, RIGHT)};
    }

    private static KeyedFlow<Tuple3<Long, Long, Long>, Long> side(Flow<Tuple3<Long, Long, Long>> events, long side) {
        String name = side == LEFT ? "left" : "right";
        return events.filter(event -> event.f0() == side).name("Only " + name)
                .assignTimestampsAndWatermarks(WatermarkStrategy.<Tuple3<Long, Long, Long>>forBoundedOutOfOrderness(
                        Duration.ofMillis(OUT_OF_ORDERNESS_MS)).withTimestampAssigner((event, previous) ->
                        timestamp(event.f2())))
                .name("Timestamps of " + name)
                .keyBy(Tuple3::f1, Types.LONG);
    }
}
