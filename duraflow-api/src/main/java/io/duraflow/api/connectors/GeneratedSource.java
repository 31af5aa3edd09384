package io.duraflow.api.connectors;

import io.duraflow.api.source.QueueSplitEnumerator;
import io.duraflow.api.source.Source;
import io.duraflow.api.source.SourceReader;
import io.duraflow.api.source.SourceReaderContext;
import io.duraflow.api.source.SplitEnumerator;
import io.duraflow.api.source.SplitEnumeratorContext;
import io.duraflow.api.source.SplitSerializer;
import io.duraflow.api.types.TypeSerializer;
import java.util.Objects;
import java.util.function.LongFunction;

/**
 * The values {@code generator(i)} for each index i in {@code [from, toExclusive)}, split like
 * {@link SequenceSource}. The generator must be a pure function of the index: a split that is
 * read again after a failure must produce the same records. Its name stands in for the function
 * in {@link #description()}, so change the name when the function changes meaning.
 *
 * <pre>{@code
 * GeneratedSource.of("words", 0, n, 8, Types.STRING, i -> "w" + (i * 7919 % 100000))
 * }</pre>
 */
public final class GeneratedSource<T> implements Source<T, RangeSplit> {
    private final String name;
    private final long from;
    private final long toExclusive;
    private final int splitCount;
    private final TypeSerializer<T> type;
    private final LongFunction<T> generator;

    private GeneratedSource(String name, long from, long toExclusive, int splitCount, TypeSerializer<T> type,
            LongFunction<T> generator) {
        RangeSplits.validate(from, toExclusive, splitCount);
        if (name.isBlank()) {
            throw new IllegalArgumentException("generated source needs a non-blank name");
        }
        this.name = name;
        this.from = from;
        this.toExclusive = toExclusive;
        this.splitCount = splitCount;
        this.type = Objects.requireNonNull(type, "type");
        this.generator = Objects.requireNonNull(generator, "generator");
    }

    /** A source of {@code generator(i)} for i in {@code [from, toExclusive)}, cut into up to {@code splitCount} splits. */
    public static <T> GeneratedSource<T> of(String name, long from, long toExclusive, int splitCount,
            TypeSerializer<T> type, LongFunction<T> generator) {
        return new GeneratedSource<>(name, from, toExclusive, splitCount, type, generator);
    }

    @Override
    public SplitEnumerator<RangeSplit> createEnumerator(SplitEnumeratorContext<RangeSplit> context) {
        return new QueueSplitEnumerator<>(context, RangeSplit.SERIALIZER,
                RangeSplits.split(from, toExclusive, splitCount));
    }

    @Override
    public SplitEnumerator<RangeSplit> restoreEnumerator(SplitEnumeratorContext<RangeSplit> context, byte[] state) {
        return QueueSplitEnumerator.restore(context, RangeSplit.SERIALIZER, state);
    }

    @Override
    public SourceReader<T, RangeSplit> createReader(SourceReaderContext context) {
        return new RangeReader<>(context, generator);
    }

    @Override
    public SplitSerializer<RangeSplit> splitSerializer() {
        return RangeSplit.SERIALIZER;
    }

    @Override
    public TypeSerializer<T> producedType() {
        return type;
    }

    @Override
    public String description() {
        return "generated(" + name + "," + from + "," + toExclusive + ",splits=" + splitCount
                + ",type=" + type.description() + ")";
    }
}
