package io.duraflow.api.connectors;

import io.duraflow.api.source.InputStatus;
import io.duraflow.api.source.ReaderOutput;
import io.duraflow.api.source.SourceReader;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.LongFunction;
import java.util.function.LongSupplier;

/**
 * Reads the {@link StrideSplit}s assigned to it in turn, a batch from each, within a rate limit.
 *
 * <p>Rate: by time {@code t} since the reader started it has emitted at most {@code rate * t}
 * records (plus one batch of slack at the start); when ahead it says NOTHING_AVAILABLE and
 * {@link #isAvailable()} completes when the next batch is due (records of a fiftieth of a second,
 * at least one), so the task thread never sleeps, wakes at most 50 times a second, and
 * checkpoints are not delayed by the limit.
 */
final class GeneratorReader<T> implements SourceReader<T, StrideSplit> {
    static final int RECORDS_PER_POLL = 4096;
    /** A rate-limited reader waits for at least this fraction of a second's records at a time. */
    static final long MAX_WAKEUPS_PER_SECOND = 50;

    private final LongFunction<T> generator;
    private final long recordsPerSecond;
    private final LongSupplier nanoClock;
    private final List<StrideSplit> splits = new ArrayList<>();
    private int turn;
    private boolean noMoreSplits;
    private long startNanos = -1;
    private long emitted;

    GeneratorReader(LongFunction<T> generator, long recordsPerSecond, LongSupplier nanoClock) {
        this.generator = generator;
        this.recordsPerSecond = recordsPerSecond;
        this.nanoClock = nanoClock;
    }

    @Override
    public void start() {
        // Splits are pushed by the enumerator; nothing to ask for.
    }

    @Override
    public InputStatus pollNext(ReaderOutput<T> output) {
        if (splits.isEmpty()) {
            return noMoreSplits ? InputStatus.END_OF_INPUT : InputStatus.NOTHING_AVAILABLE;
        }
        long allowed = allowedNow();
        if (allowed <= 0) {
            return InputStatus.NOTHING_AVAILABLE;
        }
        turn %= splits.size();
        StrideSplit split = splits.get(turn);
        long batch = Math.min(allowed, RECORDS_PER_POLL);
        long index = split.next();
        long stride = split.stride();
        long n = 0;
        // Each split's records through its own output: the reader alternates between its splits.
        ReaderOutput.SplitOutput<T> splitOutput = output.forSplit(split.splitId());
        // index < 0: it overflowed past Long.MAX_VALUE, the end of an endless split.
        while (n < batch && index < split.end() && index >= 0) {
            splitOutput.collect(generator.apply(index));
            n++;
            index += stride;
        }
        emitted += n;
        if (index >= split.end() || index < 0) {
            splits.remove(turn);
            output.releaseSplit(split.splitId());
        } else {
            splits.set(turn, new StrideSplit(split.first(), index, (int) stride, split.end()));
            turn++;
        }
        if (splits.isEmpty()) {
            return noMoreSplits ? InputStatus.END_OF_INPUT : InputStatus.NOTHING_AVAILABLE;
        }
        return InputStatus.MORE_AVAILABLE;
    }

    /** Records the rate allows now; unlimited when there is no rate. */
    private long allowedNow() {
        if (recordsPerSecond == DataGeneratorSource.UNLIMITED) {
            return Long.MAX_VALUE;
        }
        long now = nanoClock.getAsLong();
        if (startNanos < 0) {
            startNanos = now;
        }
        long due = (long) ((now - startNanos) / 1e9 * recordsPerSecond) + Math.min(RECORDS_PER_POLL, recordsPerSecond);
        return due - emitted;
    }

    @Override
    public CompletionStage<Void> isAvailable() {
        if (splits.isEmpty() || recordsPerSecond == DataGeneratorSource.UNLIMITED) {
            return WAIT_FOR_SPLITS;
        }
        return CompletableFuture.runAsync(() -> {},
                CompletableFuture.delayedExecutor(nanosUntilAvailable(), TimeUnit.NANOSECONDS));
    }

    /**
     * How long until the rate allows a batch: records due over {@code 1 / MAX_WAKEUPS_PER_SECOND}
     * of a second (at least one), so a slow reader wakes at most that often instead of once per
     * record (100 readers at 200 records/s each had woken 20,000 times a second).
     */
    long nanosUntilAvailable() {
        long batch = Math.max(1, recordsPerSecond / MAX_WAKEUPS_PER_SECOND);
        long missing = batch - allowedNow();
        return Math.max(0, (long) (missing * 1e9 / recordsPerSecond));
    }

    @Override
    public void addSplits(List<StrideSplit> newSplits) {
        for (StrideSplit split : newSplits) {
            if (!split.isExhausted()) {
                splits.add(split);
            }
        }
    }

    @Override
    public void notifyNoMoreSplits() {
        noMoreSplits = true;
    }

    @Override
    public List<StrideSplit> snapshotState(long checkpointId) {
        return List.copyOf(splits);
    }
}
