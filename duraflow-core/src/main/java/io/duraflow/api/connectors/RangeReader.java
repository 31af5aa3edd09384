package io.duraflow.api.connectors;

import io.duraflow.api.source.IteratingSourceReader;
import io.duraflow.api.source.SourceReaderContext;
import java.util.Iterator;
import java.util.function.LongFunction;

/** Reads range splits by mapping every index through a function ({@link Long#valueOf} for the indexes themselves). */
public final class RangeReader<T> extends IteratingSourceReader<T, RangeSplit> {
    private final LongFunction<T> function;

    public RangeReader(SourceReaderContext context, LongFunction<T> function) {
        super(context);
        this.function = function;
    }

    @Override
    protected Iterator<T> openSplit(RangeSplit split) {
        return RangeSplits.iterator(split, function);
    }
}
