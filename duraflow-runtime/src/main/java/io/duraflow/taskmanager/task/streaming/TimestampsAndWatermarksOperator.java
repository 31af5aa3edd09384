package io.duraflow.taskmanager.task.streaming;

import io.duraflow.api.eventtime.WatermarkGenerator;
import io.duraflow.api.eventtime.WatermarkOutput;
import io.duraflow.api.eventtime.WatermarkStrategy;
import io.duraflow.eventtime.WatermarkCombiner;
import io.duraflow.taskmanager.task.ChainedOperators;
import io.duraflow.taskmanager.task.Downstream;

/**
 * {@code assignTimestampsAndWatermarks}: gives each record the timestamp of the strategy's
 * assigner and feeds one watermark generator per subtask, whose watermarks replace the ones from
 * upstream (swallowed, except the end of time, which ends event time here too). Periodic
 * watermarks every {@code pipeline.auto-watermark-interval}. Task thread only.
 */
final class TimestampsAndWatermarksOperator implements Downstream {
    private final WatermarkStrategy<Object> strategy;
    private final Downstream out;
    private final RecordTime time;
    private final ProcessingTimeService clock;
    private final long intervalMs;
    private final WatermarkGenerator<Object> generator;
    private long emitted = WatermarkCombiner.NO_WATERMARK;
    private boolean ended;

    private final WatermarkOutput output = new WatermarkOutput() {
        @Override
        public void emitWatermark(long watermark) {
            if (watermark > emitted && !ended) {
                emitted = watermark;
                try {
                    out.processWatermark(watermark);
                } catch (Exception e) {
                    throw ChainedOperators.ChainException.wrap(e);
                }
            }
        }

        @Override
        public void markIdle() {
            // A strategy with idleness is refused when the plan is built (idleness is a source's).
        }

        @Override
        public void markActive() {
        }
    };

    TimestampsAndWatermarksOperator(WatermarkStrategy<Object> strategy, Downstream out, RecordTime time,
            ProcessingTimeService clock, long intervalMs) {
        this.strategy = strategy;
        this.out = out;
        this.time = time;
        this.clock = clock;
        this.intervalMs = intervalMs;
        this.generator = strategy.createGenerator();
    }

    @Override
    public void open(OperatorContext context) {
        schedulePeriodic();
    }

    private void schedulePeriodic() {
        clock.wakeUpAt(clock.currentTimeMs() + intervalMs, () -> {
            if (!ended) {
                generator.onPeriodicEmit(output);
                schedulePeriodic();
            }
        });
    }

    @Override
    public void push(Object record) throws Exception {
        long timestamp = strategy.timestampOf(record, time.timestamp);
        time.timestamp = timestamp;
        generator.onEvent(record, timestamp, output);
        out.push(record);
    }

    @Override
    public void processWatermark(long watermark) throws Exception {
        if (watermark == WatermarkCombiner.END_OF_TIME) {
            output.emitWatermark(watermark);
            ended = true;
        }
    }
}
