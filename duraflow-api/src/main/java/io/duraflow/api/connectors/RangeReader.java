package io.duraflow.api.connectors;

import io.duraflow.api.source.IteratingSourceReader;
import io.duraflow.api.source.SourceReaderContext;
import java.util.Iterator;
import java.util.function.LongFunction;

/** Reads range splits by mapping every index through a function ({@link Long#valueOf} for the indexes themselves). */
public final class RangeReader<T> extends IteratingSourceReader<T, RangeSplit> {
    private final LongFunction<T> function;

    public RangeReader(SourceReaderContext context, LongFunction<T> function) {
        this(context, function, DEFAULT_RECORDS_PER_POLL);
    }

    RangeReader(SourceReaderContext context, LongFunction<T> function, int recordsPerPoll) {
        super(context, recordsPerPoll);
        this.function = function;
    }

    @Override
    protected Iterator<T> openSplit(RangeSplit split) {
        return RangeSplits.iterator(split, function);
    }

    @Override
    protected RangeSplit remainder(RangeSplit split, Iterator<T> iterator, long emitted) {
        long next = split.from() + emitted;
        return next < split.to() ? new RangeSplit(next, split.to()) : null;
    }
}
