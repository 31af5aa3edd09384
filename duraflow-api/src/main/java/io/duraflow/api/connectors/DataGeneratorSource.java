package io.duraflow.api.connectors;

import io.duraflow.api.source.Boundedness;
import io.duraflow.api.source.Source;
import io.duraflow.api.source.SourceReader;
import io.duraflow.api.source.SourceReaderContext;
import io.duraflow.api.source.SplitEnumerator;
import io.duraflow.api.source.SplitEnumeratorContext;
import io.duraflow.api.source.SplitSerializer;
import io.duraflow.api.types.TypeSerializer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.LongFunction;

/**
 * {@code generator(i)} for i = 0, 1, 2, ... — without end, or up to {@code count} — at most
 * {@code recordsPerSecond} records per second over all readers. For streaming jobs: the readers'
 * positions are checkpointed, so a restored job continues exactly where its checkpoint was.
 *
 * <pre>{@code
 * DataGeneratorSource.of("clicks", Types.LONG, i -> i).withRate(10_000)            // endless
 * DataGeneratorSource.of("numbers", Types.LONG, i -> i).withCount(50_000_000)     // bounded
 * }</pre>
 *
 * <p>The indexes are dealt into {@code splits} {@link StrideSplit}s (default: the source's
 * parallelism when the job first starts), assigned round-robin to the readers up front; a
 * reader reads all of its splits in turn. Like {@link GeneratedSource}, the generator must be a
 * pure function of the index, and its {@code name} stands for it in {@link #description()}.
 */
public final class DataGeneratorSource<T> implements Source<T, StrideSplit> {
    /** No rate limit. */
    public static final long UNLIMITED = 0;

    private final String name;
    private final TypeSerializer<T> type;
    private final LongFunction<T> generator;
    private final long count;
    private final long recordsPerSecond;
    private final int splits;

    private DataGeneratorSource(String name, TypeSerializer<T> type, LongFunction<T> generator, long count,
            long recordsPerSecond, int splits) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("a data generator source needs a non-blank name");
        }
        if (count < 0) {
            throw new IllegalArgumentException("record count must not be negative, got " + count);
        }
        if (recordsPerSecond < 0) {
            throw new IllegalArgumentException("rate must be positive (or 0 for no limit), got " + recordsPerSecond);
        }
        if (splits < 0) {
            throw new IllegalArgumentException("split count must be positive (or 0 for one per reader), got " + splits);
        }
        this.name = name;
        this.type = Objects.requireNonNull(type, "type");
        this.generator = Objects.requireNonNull(generator, "generator");
        this.count = count;
        this.recordsPerSecond = recordsPerSecond;
        this.splits = splits;
    }

    /** An endless source without rate limit; narrow it with the {@code with...} methods. */
    public static <T> DataGeneratorSource<T> of(String name, TypeSerializer<T> type, LongFunction<T> generator) {
        return new DataGeneratorSource<>(name, type, generator, Long.MAX_VALUE, UNLIMITED, 0);
    }

    /** Ends after indexes {@code 0 .. count-1}: a bounded source. */
    public DataGeneratorSource<T> withCount(long records) {
        return new DataGeneratorSource<>(name, type, generator, records, recordsPerSecond, splits);
    }

    /** At most this many records per second over all readers ({@link #UNLIMITED}: as fast as possible). */
    public DataGeneratorSource<T> withRate(long perSecond) {
        return new DataGeneratorSource<>(name, type, generator, count, perSecond, splits);
    }

    /** Deals the indexes into this many splits, the most readers that can share the work. */
    public DataGeneratorSource<T> withSplits(int splitCount) {
        return new DataGeneratorSource<>(name, type, generator, count, recordsPerSecond, splitCount);
    }

    @Override
    public Boundedness boundedness() {
        return count == Long.MAX_VALUE ? Boundedness.CONTINUOUS_UNBOUNDED : Boundedness.BOUNDED;
    }

    @Override
    public SplitEnumerator<StrideSplit> createEnumerator(SplitEnumeratorContext<StrideSplit> context) {
        int k = splits > 0 ? splits : context.parallelism();
        List<StrideSplit> all = new ArrayList<>();
        for (int j = 0; j < k && j < count; j++) {
            all.add(new StrideSplit(j, j, k, count));
        }
        return new RoundRobinEnumerator<>(context, StrideSplit.SERIALIZER, all);
    }

    @Override
    public SplitEnumerator<StrideSplit> restoreEnumerator(SplitEnumeratorContext<StrideSplit> context, byte[] state) {
        return RoundRobinEnumerator.restore(context, StrideSplit.SERIALIZER, state);
    }

    @Override
    public SourceReader<T, StrideSplit> createReader(SourceReaderContext context) {
        long perReader = recordsPerSecond == UNLIMITED ? UNLIMITED
                : Math.max(1, recordsPerSecond / Math.max(1, context.parallelism()));
        return new GeneratorReader<>(generator, perReader, System::nanoTime);
    }

    @Override
    public SplitSerializer<StrideSplit> splitSerializer() {
        return StrideSplit.SERIALIZER;
    }

    @Override
    public TypeSerializer<T> producedType() {
        return type;
    }

    @Override
    public String description() {
        return "data-generator(" + name + ",count=" + (count == Long.MAX_VALUE ? "unbounded" : count) + ",rate="
                + recordsPerSecond + ",splits=" + splits + ",type=" + type.description() + ")";
    }
}
