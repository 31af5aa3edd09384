package io.duraflow.api;

import io.duraflow.api.eventtime.TimestampAssigner;
import io.duraflow.api.functions.Collector;
import io.duraflow.api.functions.KeyedCoProcessFunction;
import io.duraflow.api.functions.KeyedProcessFunction;
import io.duraflow.api.functions.ProcessJoinFunction;
import io.duraflow.api.functions.RuntimeContext;
import io.duraflow.api.functions.TimestampedCollector;
import io.duraflow.api.state.MapState;
import io.duraflow.api.state.MapStateDescriptor;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.api.types.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The interval join ({@link IntervalJoin}) as a keyed co-process function over keyed state and
 * event-time timers, with inclusive bounds {@code lower <= upper} in milliseconds. For each key:
 *
 * <ol>
 *   <li>A record at or below the watermark is late and dropped: the other side's records it could
 *       join may be gone (rule 4), and it could join no record still to come.</li>
 *   <li>A left record {@code a} joins each buffered right record {@code b} with {@code a.ts +
 *       lower <= b.ts <= a.ts + upper}, and a right record each buffered left record with the
 *       same condition; each pair is emitted once, by the later of the two to arrive, with the
 *       higher of their timestamps.</li>
 *   <li>Then the record waits in its side's buffer, a map state from timestamp to the records
 *       with it, with an event-time timer at its cleanup time: {@code a.ts + upper} for a left
 *       record, {@code b.ts - lower} for a right one.</li>
 *   <li>A timer at {@code t} removes the left records at {@code t - upper} and the right ones at
 *       {@code t + lower}. It fires once the watermark reaches {@code t}; every record of the other
 *       side still to come is then above {@code t} (rule 1) and so outside the bounds of those
 *       records. The end of time clears both buffers.</li>
 * </ol>
 *
 * Rules 1 and 4 together make the output exact: every pair of records that are not late is
 * emitted once. Both sides share the key's timers; one timer may clean both.
 */
final class IntervalJoinFunction<K, T, R, O> extends KeyedCoProcessFunction<K, T, R, O>
        implements io.duraflow.api.eventtime.UsesEventTime {
    private final long lowerMs;
    private final long upperMs;
    private final TypeSerializer<T> leftType;
    private final TypeSerializer<R> rightType;
    private final ProcessJoinFunction<T, R, O> function;
    private final PairContext pair = new PairContext();
    private MapState<Long, List<T>> leftBuffer;
    private MapState<Long, List<R>> rightBuffer;

    IntervalJoinFunction(long lowerMs, long upperMs, TypeSerializer<T> leftType, TypeSerializer<R> rightType,
            ProcessJoinFunction<T, R, O> function) {
        if (lowerMs > upperMs) {
            throw new IllegalArgumentException("lower bound " + lowerMs + " is above upper bound " + upperMs);
        }
        this.lowerMs = lowerMs;
        this.upperMs = upperMs;
        this.leftType = leftType;
        this.rightType = rightType;
        this.function = function;
    }

    @Override
    public void open(RuntimeContext context) throws Exception {
        leftBuffer = context.state().getMapState(new MapStateDescriptor<>("interval-join-left", Types.LONG,
                Types.list(leftType)));
        rightBuffer = context.state().getMapState(new MapStateDescriptor<>("interval-join-right", Types.LONG,
                Types.list(rightType)));
        function.open(context);
    }

    @Override
    public void processElement1(T left, KeyedProcessFunction.Context<K> context, Collector<O> out) throws Exception {
        long timestamp = timestampOf("left", left, context);
        if (timestamp <= context.timerService().currentWatermark()) {
            return;
        }
        long from = saturatedAdd(timestamp, lowerMs);
        long to = saturatedAdd(timestamp, upperMs);
        for (Map.Entry<Long, List<R>> bucket : rightBuffer.entries()) {
            long rightTimestamp = bucket.getKey();
            if (rightTimestamp >= from && rightTimestamp <= to) {
                for (R right : bucket.getValue()) {
                    emit(left, timestamp, right, rightTimestamp, out);
                }
            }
        }
        add(leftBuffer, timestamp, left);
        context.timerService().registerEventTimeTimer(to);
    }

    @Override
    public void processElement2(R right, KeyedProcessFunction.Context<K> context, Collector<O> out) throws Exception {
        long timestamp = timestampOf("right", right, context);
        if (timestamp <= context.timerService().currentWatermark()) {
            return;
        }
        long from = saturatedAdd(timestamp, -upperMs);
        long to = saturatedAdd(timestamp, -lowerMs);
        for (Map.Entry<Long, List<T>> bucket : leftBuffer.entries()) {
            long leftTimestamp = bucket.getKey();
            if (leftTimestamp >= from && leftTimestamp <= to) {
                for (T left : bucket.getValue()) {
                    emit(left, leftTimestamp, right, timestamp, out);
                }
            }
        }
        add(rightBuffer, timestamp, right);
        context.timerService().registerEventTimeTimer(to);
    }

    @Override
    public void onTimer(long timestamp, KeyedProcessFunction.Context<K> context, Collector<O> out) {
        if (timestamp == Long.MAX_VALUE) {
            leftBuffer.clear();
            rightBuffer.clear();
            return;
        }
        leftBuffer.remove(timestamp - upperMs);
        rightBuffer.remove(timestamp + lowerMs);
    }

    @Override
    public void close() throws Exception {
        function.close();
    }

    private static long timestampOf(String side, Object record, KeyedProcessFunction.Context<?> context) {
        long timestamp = context.timestamp();
        if (timestamp == TimestampAssigner.NO_TIMESTAMP) {
            throw new NonRetriableException("intervalJoin: a " + side + " record has no timestamp (" + record + "); an"
                    + " interval join works in event time: give its input a WatermarkStrategy (on the source, or"
                    + " with assignTimestampsAndWatermarks)");
        }
        return timestamp;
    }

    private static <V> void add(MapState<Long, List<V>> buffer, long timestamp, V record) {
        List<V> records = buffer.get(timestamp);
        List<V> updated = records == null ? new ArrayList<>(1) : new ArrayList<>(records);
        updated.add(record);
        buffer.put(timestamp, updated);
    }

    private void emit(T left, long leftTimestamp, R right, long rightTimestamp, Collector<O> out) throws Exception {
        pair.leftTimestamp = leftTimestamp;
        pair.rightTimestamp = rightTimestamp;
        pair.out = out;
        function.processElement(left, right, pair, pair);
    }

    /** {@code a + b}, held at Long.MIN_VALUE or Long.MAX_VALUE instead of overflowing. */
    private static long saturatedAdd(long a, long b) {
        long sum = a + b;
        if (((a ^ sum) & (b ^ sum)) < 0) {
            return b > 0 ? Long.MAX_VALUE : Long.MIN_VALUE;
        }
        return sum;
    }

    /** The pair being joined: its context, and the collector that gives what it emits the pair's timestamp. */
    private final class PairContext implements ProcessJoinFunction.Context, Collector<O> {
        long leftTimestamp;
        long rightTimestamp;
        Collector<O> out;

        @Override
        public long leftTimestamp() {
            return leftTimestamp;
        }

        @Override
        public long rightTimestamp() {
            return rightTimestamp;
        }

        @Override
        public void collect(O record) {
            if (out instanceof TimestampedCollector<O> timestamped) {
                timestamped.collect(record, timestamp());
            } else {
                out.collect(record);
            }
        }
    }

    @Override
    public String eventTimeUse() {
        return "an interval join";
    }
}
