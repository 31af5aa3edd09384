package io.duraflow.api.source;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * A reader for sources whose split can be read as an iterator: it asks for one split at a time,
 * reads it to the end and asks for the next, so splits spread over readers by speed.
 */
public abstract class IteratingSourceReader<T, S extends SourceSplit> implements SourceReader<T, S> {
    /** Records one {@link #pollNext} emits at most, unless a subclass says otherwise. */
    public static final int DEFAULT_RECORDS_PER_POLL = 4096;

    private final int recordsPerPoll;

    private final SourceReaderContext context;
    private final ArrayDeque<S> pending = new ArrayDeque<>();
    private S current;
    private Iterator<T> iterator;
    /** Records of {@link #current} returned so far. */
    private long emitted;
    private boolean noMoreSplits;
    private boolean requested;

    protected IteratingSourceReader(SourceReaderContext context) {
        this(context, DEFAULT_RECORDS_PER_POLL);
    }

    protected IteratingSourceReader(SourceReaderContext context, int recordsPerPoll) {
        if (recordsPerPoll < 1) {
            throw new IllegalArgumentException("a reader must emit at least 1 record per poll, got " + recordsPerPoll);
        }
        this.context = context;
        this.recordsPerPoll = recordsPerPoll;
    }

    /** Opens a split for reading. The iterator may be closed by {@link #closeSplit}. */
    protected abstract Iterator<T> openSplit(S split) throws Exception;

    /**
     * What is left of an open split for a checkpoint: the split that, read from the start,
     * yields exactly the records {@code iterator} has not returned yet ({@code emitted} records of
     * {@code split} were returned), or {@code null} when none are left. A restored job reads that
     * split, so its input is neither skipped nor repeated.
     */
    protected abstract S remainder(S split, Iterator<T> iterator, long emitted) throws Exception;

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
    public InputStatus pollNext(ReaderOutput<T> output) throws Exception {
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
            emitted = 0;
        }
        ReaderOutput.SplitOutput<T> split = output.forSplit(current.splitId());
        int count = 0;
        while (count < recordsPerPoll && iterator.hasNext()) {
            split.collect(iterator.next());
            count++;
        }
        emitted += count;
        if (!iterator.hasNext()) {
            output.releaseSplit(current.splitId());
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
    public List<S> snapshotState(long checkpointId) throws Exception {
        List<S> state = new ArrayList<>();
        if (current != null) {
            S rest = remainder(current, iterator, emitted);
            if (rest != null) {
                state.add(rest);
            }
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
