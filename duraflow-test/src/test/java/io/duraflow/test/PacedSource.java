package io.duraflow.test;

import io.duraflow.api.connectors.DataGeneratorSource;
import io.duraflow.api.connectors.StrideSplit;
import io.duraflow.api.source.InputStatus;
import io.duraflow.api.source.ReaderOutput;
import io.duraflow.api.source.Source;
import io.duraflow.api.source.SourceReader;
import io.duraflow.api.source.SourceReaderContext;
import io.duraflow.api.source.SplitEnumerator;
import io.duraflow.api.source.SplitEnumeratorContext;
import io.duraflow.api.source.SplitSerializer;
import io.duraflow.api.types.TypeSerializer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.LongFunction;

/**
 * {@code generator(i)} for i = 0 .. count - 1, like a bounded {@link DataGeneratorSource} with one
 * split, but one record per poll and at most one every {@code 1 / perSecond} s, without making up
 * for the time it was not polled. A rate-limited {@link DataGeneratorSource} makes up for it: a
 * reader that watermark alignment paused would emit everything due since in one poll, far past
 * its group, before its watermark could stop it.
 */
final class PacedSource<T> implements Source<T, StrideSplit> {
    private final DataGeneratorSource<T> splits;
    private final LongFunction<T> generator;
    private final long periodNanos;

    PacedSource(String name, TypeSerializer<T> type, LongFunction<T> generator, long count, long perSecond) {
        this.splits = DataGeneratorSource.of(name, type, generator).withCount(count).withSplits(1);
        this.generator = generator;
        this.periodNanos = TimeUnit.SECONDS.toNanos(1) / perSecond;
    }

    @Override
    public SplitEnumerator<StrideSplit> createEnumerator(SplitEnumeratorContext<StrideSplit> context) {
        return splits.createEnumerator(context);
    }

    @Override
    public SplitEnumerator<StrideSplit> restoreEnumerator(SplitEnumeratorContext<StrideSplit> context, byte[] state) {
        return splits.restoreEnumerator(context, state);
    }

    @Override
    public SourceReader<T, StrideSplit> createReader(SourceReaderContext context) {
        return new SourceReader<>() {
            private final List<StrideSplit> held = new ArrayList<>();
            private boolean noMoreSplits;
            private long nextDueNanos;

            @Override
            public void start() {
            }

            @Override
            public InputStatus pollNext(ReaderOutput<T> output) {
                if (held.isEmpty()) {
                    return noMoreSplits ? InputStatus.END_OF_INPUT : InputStatus.NOTHING_AVAILABLE;
                }
                long now = System.nanoTime();
                if (now < nextDueNanos) {
                    return InputStatus.NOTHING_AVAILABLE;
                }
                nextDueNanos = now + periodNanos; // from now: time not polled is not made up for
                StrideSplit split = held.get(0);
                output.forSplit(split.splitId()).collect(generator.apply(split.next()));
                StrideSplit rest = new StrideSplit(split.first(), split.next() + split.stride(), split.stride(),
                        split.end());
                if (rest.isExhausted()) {
                    held.remove(0);
                    output.releaseSplit(split.splitId());
                } else {
                    held.set(0, rest);
                }
                return held.isEmpty() && noMoreSplits ? InputStatus.END_OF_INPUT : InputStatus.NOTHING_AVAILABLE;
            }

            @Override
            public CompletionStage<Void> isAvailable() {
                if (held.isEmpty()) {
                    return WAIT_FOR_SPLITS;
                }
                long waitNanos = Math.max(0, nextDueNanos - System.nanoTime());
                return CompletableFuture.runAsync(() -> { },
                        CompletableFuture.delayedExecutor(waitNanos, TimeUnit.NANOSECONDS));
            }

            @Override
            public void addSplits(List<StrideSplit> added) {
                held.addAll(added);
            }

            @Override
            public void notifyNoMoreSplits() {
                noMoreSplits = true;
            }

            @Override
            public List<StrideSplit> snapshotState(long checkpointId) {
                return List.copyOf(held);
            }
        };
    }

    @Override
    public SplitSerializer<StrideSplit> splitSerializer() {
        return splits.splitSerializer();
    }

    @Override
    public TypeSerializer<T> producedType() {
        return splits.producedType();
    }

    @Override
    public String description() {
        return "paced(" + splits.description() + ",period=" + periodNanos + "ns)";
    }
}
