package io.duraflow.taskmanager.task.streaming;

import io.duraflow.api.eventtime.TimestampAssigner;
import io.duraflow.api.eventtime.WatermarkStrategy;
import io.duraflow.api.source.ReaderOutput;
import io.duraflow.eventtime.SplitWatermarks;
import io.duraflow.eventtime.WatermarkCombiner;
import io.duraflow.taskmanager.task.ChainedOperators;
import io.duraflow.taskmanager.task.Downstream;
import io.duraflow.taskmanager.task.TaskCounters;
import java.util.HashMap;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * A source task's reader output when its source has a {@link WatermarkStrategy}: each record
 * gets its timestamp (the strategy's assigner, else the one its source gives), goes into the
 * chain with it, and feeds its split's watermark generator ({@link SplitWatermarks}); the
 * reader's watermark goes into the chain as it rises and its idleness to the task's consumers.
 * Records a reader emits outside any split form a split of their own.
 *
 * <p>A split's generator starts with the split's first record, so a split assigned but not read
 * yet does not hold the watermark back (readers read their splits in turn or one after another).
 * Idleness is measured on the periodic ticks ({@link #onPeriodic}), so its resolution is
 * {@code pipeline.auto-watermark-interval}. Task thread only.
 */
final class SourceEventTime implements ReaderOutput<Object> {
    /** The split of records emitted outside any split. */
    private static final String READER = "(reader)";

    private final Downstream out;
    private final TaskCounters counters;
    private final RecordTime time;
    private final SplitWatermarks<Object> watermarks;
    private final Map<String, SplitOutput<Object>> splits = new HashMap<>();
    /** Processing time of the last periodic tick: what records of this tick are stamped with for idleness. */
    private long nowMs;

    SourceEventTime(WatermarkStrategy<Object> strategy, Downstream out, TaskCounters counters, RecordTime time,
            long nowMs, Consumer<Boolean> idleness) {
        this.out = out;
        this.counters = counters;
        this.time = time;
        this.nowMs = nowMs;
        this.watermarks = new SplitWatermarks<>(strategy, new WatermarkCombiner.Output() {
            @Override
            public void watermark(long watermark) {
                try {
                    out.processWatermark(watermark);
                } catch (Exception e) {
                    throw ChainedOperators.ChainException.wrap(e);
                }
            }

            @Override
            public void idle(boolean idle) {
                idleness.accept(idle);
            }
        });
    }

    @Override
    public void collect(Object record) {
        forSplit(READER).collect(record, TimestampAssigner.NO_TIMESTAMP);
    }

    @Override
    public void collect(Object record, long timestamp) {
        forSplit(READER).collect(record, timestamp);
    }

    @Override
    public SplitOutput<Object> forSplit(String splitId) {
        SplitOutput<Object> split = splits.get(splitId);
        if (split == null) {
            watermarks.addSplit(splitId, nowMs);
            split = new SplitOutput<>() {
                @Override
                public void collect(Object record) {
                    collect(record, TimestampAssigner.NO_TIMESTAMP);
                }

                @Override
                public void collect(Object record, long timestamp) {
                    counters.recordsIn++;
                    time.timestamp = watermarks.onRecord(splitId, record, timestamp, nowMs);
                    try {
                        out.push(record);
                    } catch (Exception e) {
                        throw ChainedOperators.ChainException.wrap(e);
                    }
                }
            };
            splits.put(splitId, split);
        }
        return split;
    }

    @Override
    public void releaseSplit(String splitId) {
        if (splits.remove(splitId) != null) {
            watermarks.splitFinished(splitId);
        }
    }

    /** A periodic tick at processing time {@code nowMs}: every split's generator, then idleness. */
    void onPeriodic(long nowMs) {
        this.nowMs = nowMs;
        watermarks.onPeriodic(nowMs);
    }

    /** The reader's input ended: every split is done, and event time reaches its end. */
    void endOfInput() {
        for (String splitId : java.util.List.copyOf(splits.keySet())) {
            releaseSplit(splitId);
        }
        watermarks.noMoreSplits();
    }

    long currentWatermark() {
        return watermarks.current();
    }

    boolean isIdle() {
        return watermarks.isIdle();
    }

    /** The generators' periodic emit every {@code intervalMs}, while {@code running}. */
    void schedulePeriodic(ProcessingTimeService clock, long intervalMs, BooleanSupplier running) {
        clock.wakeUpAt(clock.currentTimeMs() + intervalMs, () -> {
            if (running.getAsBoolean()) {
                onPeriodic(clock.currentTimeMs());
                schedulePeriodic(clock, intervalMs, running);
            }
        });
    }
}
