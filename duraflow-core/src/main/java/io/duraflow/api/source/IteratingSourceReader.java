package io.duraflow.api.source;

import io.duraflow.api.functions.Collector;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * A reader for sources whose split can be read as an iterator: it asks for one split at a time,
 * reads it to the end and asks for the next, so splits spread over readers by speed.
 */
public abstract class IteratingSourceReader<T, S extends SourceSplit> implements SourceReader<T, S> {
    private static final int BATCH = 4096;

    private final SourceReaderContext context;
    private final ArrayDeque<S> pending = new ArrayDeque<>();
    private S current;
    private Iterator<T> iterator;
    private boolean noMoreSplits;
    private boolean requested;

    protected IteratingSourceReader(SourceReaderContext context) {
        this.context = context;
    }

    /** Opens a split for reading. The iterator may be closed by {@link #closeSplit}. */
    protected abstract Iterator<T> openSplit(S split) throws Exception;

    protected void closeSplit(S split, Iterator<T> iterator) throws Exception {}

    @Override
    public void start() {
        requestSplit();
    }

    private void requestSplit() {
        if (!requested && !noMoreSplits) {
            requested = true;
            context.sendSplitRequest();
        }
    }

    @Override
    public InputStatus pollNext(Collector<T> output) throws Exception {
        if (iterator == null) {
            S next = pending.poll();
            if (next == null) {
                if (noMoreSplits) {
                    return InputStatus.END_OF_INPUT;
                }
                requestSplit();
                return InputStatus.NOTHING_AVAILABLE;
            }
            current = next;
            iterator = openSplit(next);
        }
        for (int i = 0; i < BATCH && iterator.hasNext(); i++) {
            output.collect(iterator.next());
        }
        if (!iterator.hasNext()) {
            closeSplit(current, iterator);
            iterator = null;
            current = null;
            if (pending.isEmpty()) {
                requestSplit();
            }
        }
        return InputStatus.MORE_AVAILABLE;
    }

    @Override
    public void addSplits(List<S> splits) {
        requested = false;
        pending.addAll(splits);
    }

    @Override
    public void notifyNoMoreSplits() {
        requested = false;
        noMoreSplits = true;
    }

    @Override
    public List<S> snapshotState(long checkpointId) {
        List<S> state = new ArrayList<>();
        if (current != null) {
            state.add(current);
        }
        state.addAll(pending);
        return state;
    }

    @Override
    public void close() throws Exception {
        if (iterator != null) {
            closeSplit(current, iterator);
            iterator = null;
        }
    }
}
