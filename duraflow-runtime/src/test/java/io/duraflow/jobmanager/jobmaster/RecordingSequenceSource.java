package io.duraflow.jobmanager.jobmaster;

import io.duraflow.api.connectors.RangeSplit;
import io.duraflow.api.connectors.SequenceSource;
import io.duraflow.api.source.SourceReader;
import io.duraflow.api.source.SourceReaderContext;
import io.duraflow.api.source.Source;
import io.duraflow.api.source.SplitEnumerator;
import io.duraflow.api.source.SplitEnumeratorContext;
import io.duraflow.api.source.SplitSerializer;
import io.duraflow.api.types.TypeSerializer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A {@link SequenceSource} whose enumerators record what the coordinator asks of them: snapshots,
 * completed checkpoints, and the states they were restored from. Static lists, since the job master
 * creates the enumerators; a test calls {@link #clear} first.
 */
public final class RecordingSequenceSource implements Source<Long, RangeSplit> {
    static final List<Long> SNAPSHOTS = Collections.synchronizedList(new ArrayList<>());
    static final List<Long> COMPLETED = Collections.synchronizedList(new ArrayList<>());
    static final List<byte[]> RESTORED = Collections.synchronizedList(new ArrayList<>());
    /** What each snapshot returned, in the order of {@link #SNAPSHOTS}. */
    static final List<byte[]> SNAPSHOT_STATES = Collections.synchronizedList(new ArrayList<>());

    /** What the enumerators answer to isSnapshotAvailable, by checkpoint id; available unless a test says. */
    static volatile java.util.function.LongFunction<io.duraflow.api.checkpoint.SnapshotAvailability> availability =
            id -> io.duraflow.api.checkpoint.SnapshotAvailability.available();

    private final SequenceSource delegate;

    public RecordingSequenceSource(long from, long toExclusive, int splitCount) {
        this.delegate = new SequenceSource(from, toExclusive, splitCount);
    }

    public static void clear() {
        SNAPSHOTS.clear();
        COMPLETED.clear();
        RESTORED.clear();
        SNAPSHOT_STATES.clear();
        availability = id -> io.duraflow.api.checkpoint.SnapshotAvailability.available();
    }

    @Override
    public SplitEnumerator<RangeSplit> createEnumerator(SplitEnumeratorContext<RangeSplit> context) throws Exception {
        return recording(delegate.createEnumerator(context));
    }

    @Override
    public SplitEnumerator<RangeSplit> restoreEnumerator(SplitEnumeratorContext<RangeSplit> context, byte[] state)
            throws Exception {
        RESTORED.add(state.clone());
        return recording(delegate.restoreEnumerator(context, state));
    }

    private static SplitEnumerator<RangeSplit> recording(SplitEnumerator<RangeSplit> enumerator) {
        return new SplitEnumerator<>() {
            @Override
            public void start() {
                enumerator.start();
            }

            @Override
            public void handleSplitRequest(int subtask) {
                enumerator.handleSplitRequest(subtask);
            }

            @Override
            public void addSplitsBack(List<RangeSplit> splits, int subtask) {
                enumerator.addSplitsBack(splits, subtask);
            }

            @Override
            public byte[] snapshotState(long checkpointId) throws Exception {
                SNAPSHOTS.add(checkpointId);
                byte[] state = enumerator.snapshotState(checkpointId);
                SNAPSHOT_STATES.add(state.clone());
                return state;
            }

            @Override
            public void notifyCheckpointComplete(long checkpointId) {
                COMPLETED.add(checkpointId);
            }

            @Override
            public io.duraflow.api.checkpoint.SnapshotAvailability isSnapshotAvailable(long checkpointId) {
                return availability.apply(checkpointId);
            }
        };
    }

    @Override
    public SourceReader<Long, RangeSplit> createReader(SourceReaderContext context) throws Exception {
        return delegate.createReader(context);
    }

    @Override
    public SplitSerializer<RangeSplit> splitSerializer() {
        return delegate.splitSerializer();
    }

    @Override
    public TypeSerializer<Long> producedType() {
        return delegate.producedType();
    }

    @Override
    public String description() {
        return "recording " + delegate.description();
    }
}
