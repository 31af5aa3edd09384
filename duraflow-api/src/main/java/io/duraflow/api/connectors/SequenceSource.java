package io.duraflow.api.connectors;

import io.duraflow.api.source.QueueSplitEnumerator;
import io.duraflow.api.source.Source;
import io.duraflow.api.source.SourceReader;
import io.duraflow.api.source.SourceReaderContext;
import io.duraflow.api.source.SplitEnumerator;
import io.duraflow.api.source.SplitEnumeratorContext;
import io.duraflow.api.source.SplitSerializer;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.api.types.Types;

/**
 * The longs in {@code [from, toExclusive)}, in ascending order within each of up to
 * {@code splitCount} contiguous {@link RangeSplit}s (fewer if the range has fewer values).
 */
public final class SequenceSource implements Source<Long, RangeSplit> {
    private final long from;
    private final long toExclusive;
    private final int splitCount;

    public SequenceSource(long from, long toExclusive, int splitCount) {
        RangeSplits.validate(from, toExclusive, splitCount);
        this.from = from;
        this.toExclusive = toExclusive;
        this.splitCount = splitCount;
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
    public SourceReader<Long, RangeSplit> createReader(SourceReaderContext context) {
        return new RangeReader<>(context, Long::valueOf);
    }

    @Override
    public SplitSerializer<RangeSplit> splitSerializer() {
        return RangeSplit.SERIALIZER;
    }

    @Override
    public TypeSerializer<Long> producedType() {
        return Types.LONG;
    }

    @Override
    public String description() {
        return "sequence(" + from + "," + toExclusive + ",splits=" + splitCount + ")";
    }
}
