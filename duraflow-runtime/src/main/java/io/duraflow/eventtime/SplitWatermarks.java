package io.duraflow.eventtime;

import io.duraflow.api.eventtime.WatermarkGenerator;
import io.duraflow.api.eventtime.WatermarkOutput;
import io.duraflow.api.eventtime.WatermarkStrategy;
import java.util.HashMap;
import java.util.Map;

/**
 * A source reader's event time: each split gets a generator of the job's {@link WatermarkStrategy}
 * and is one input of a {@link WatermarkCombiner}, so the reader's watermark is the lowest of its
 * splits that are neither idle nor finished (a split ahead does not lose records of one behind).
 * A split without records for the strategy's idleness timeout is idle until its next record; it
 * then skips its generator's periodic watermarks (which would make it active again). The reader's
 * watermark reaches the end of time only once every split finished and no more will come.
 *
 * <p>Until its first split comes, a reader holds event time at {@code Long.MIN_VALUE}: a reader
 * that starts reading after another does not find its first records late because the other's
 * watermark ran ahead. With an idleness timeout, a reader without splits for that long is idle
 * instead; a reader that ends without any split (no split was left for it) holds nothing back.
 *
 * <p>Called on the task thread only; processing time comes in as {@code nowMs}.
 *
 * @param <T> the record type
 */
public final class SplitWatermarks<T> {
    private final WatermarkStrategy<T> strategy;
    private final WatermarkCombiner combiner;
    private final long idleTimeoutMs;
    private final Map<String, Split> splits = new HashMap<>();
    /**
     * Active at {@code Long.MIN_VALUE} until the first split (or the idleness timeout); then idle
     * while more splits may come (it holds nothing back, yet keeps the end of time away); ended
     * after.
     */
    private final int moreSplits;
    private boolean started;
    /** The first periodic tick's time, from which a reader without splits idles; -1 before it. */
    private long firstTickMs = -1;

    private final class Split implements WatermarkOutput {
        final String id;
        final int input;
        final WatermarkGenerator<T> generator;
        long lastEventMs;
        boolean timedOut;

        Split(String id, int input, WatermarkGenerator<T> generator, long nowMs) {
            this.id = id;
            this.input = input;
            this.generator = generator;
            this.lastEventMs = nowMs;
        }

        @Override
        public void emitWatermark(long watermark) {
            combiner.update(input, watermark);
        }

        @Override
        public void markIdle() {
            combiner.markIdle(input);
        }

        @Override
        public void markActive() {
            combiner.markActive(input);
        }
    }

    public SplitWatermarks(WatermarkStrategy<T> strategy, WatermarkCombiner.Output output) {
        this.strategy = strategy;
        this.combiner = new WatermarkCombiner(output);
        this.idleTimeoutMs = strategy.idleness().map(java.time.Duration::toMillis).orElse(0L);
        this.moreSplits = combiner.addInput();
    }

    /** A split the reader got; it holds the reader's watermark until it emits one (or idles). */
    public void addSplit(String splitId, long nowMs) {
        if (splits.containsKey(splitId)) {
            throw new IllegalStateException("split " + splitId + " was added twice");
        }
        splits.put(splitId, new Split(splitId, combiner.addInput(), strategy.createGenerator(), nowMs));
        if (!started) {
            started = true;
            combiner.markIdle(moreSplits);
        }
    }

    /**
     * A record of split {@code splitId}, with the timestamp its source gave it (or
     * {@code TimestampAssigner.NO_TIMESTAMP}); returns the timestamp it carries on.
     */
    public long onRecord(String splitId, T record, long recordTimestamp, long nowMs) {
        Split split = split(splitId);
        long timestamp = strategy.timestampOf(record, recordTimestamp);
        split.lastEventMs = nowMs;
        if (split.timedOut) {
            split.timedOut = false;
            combiner.markActive(split.input);
        }
        split.generator.onEvent(record, timestamp, split);
        return timestamp;
    }

    /** The periodic emit: every split's generator, then idleness. */
    public void onPeriodic(long nowMs) {
        if (!started) {
            firstTickMs = firstTickMs < 0 ? nowMs : firstTickMs;
            if (idleTimeoutMs > 0 && nowMs - firstTickMs >= idleTimeoutMs) {
                started = true;
                combiner.markIdle(moreSplits);
            }
        }
        for (Split split : splits.values()) {
            if (!split.timedOut && idleTimeoutMs > 0 && nowMs - split.lastEventMs >= idleTimeoutMs) {
                split.timedOut = true;
                combiner.markIdle(split.input);
            }
            if (!split.timedOut) {
                split.generator.onPeriodicEmit(split);
            }
        }
    }

    /** Split {@code splitId} was read to its end: it holds nothing back any more. */
    public void splitFinished(String splitId) {
        Split split = split(splitId);
        // Its last records' watermark first, so that downstream sees event time reach them.
        split.generator.onPeriodicEmit(split);
        combiner.end(split.input);
        splits.remove(splitId);
    }

    /** No split will come any more: once the current ones finish, the watermark is the end of time. */
    public void noMoreSplits() {
        combiner.end(moreSplits);
    }

    /** The reader's watermark so far. */
    public long current() {
        return combiner.current();
    }

    public boolean isIdle() {
        return combiner.isIdle();
    }

    private Split split(String splitId) {
        Split split = splits.get(splitId);
        if (split == null) {
            throw new IllegalStateException("no split " + splitId + " was added");
        }
        return split;
    }
}
