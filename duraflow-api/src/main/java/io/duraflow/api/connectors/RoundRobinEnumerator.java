package io.duraflow.api.connectors;

import io.duraflow.api.source.SourceSplit;
import io.duraflow.api.source.SplitEnumerator;
import io.duraflow.api.source.SplitEnumeratorContext;
import io.duraflow.api.source.SplitSerializer;
import io.duraflow.api.types.CorruptDataException;
import io.duraflow.api.types.DataReader;
import io.duraflow.api.types.DataWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * Deals all splits to the readers when it starts (split i to reader i mod parallelism) and then
 * tells every reader there are no more: for sources whose splits never end, which a reader must
 * hold together instead of asking for one after another. Splits that come back (a batch reader
 * that failed) go back to the same reader. After a restore the splits are in the readers'
 * checkpointed state, so a restored enumerator holds none and only signals the end of splits.
 *
 * <p>State format: {@code varint version (1) | varint count | count * (varint length | bytes)},
 * the splits not dealt yet.
 */
final class RoundRobinEnumerator<S extends SourceSplit> implements SplitEnumerator<S> {
    private static final int STATE_VERSION = 1;

    private final SplitEnumeratorContext<S> context;
    private final SplitSerializer<S> serializer;
    private final List<S> undealt;

    RoundRobinEnumerator(SplitEnumeratorContext<S> context, SplitSerializer<S> serializer, List<S> splits) {
        this.context = context;
        this.serializer = serializer;
        this.undealt = new ArrayList<>(splits);
    }

    static <S extends SourceSplit> RoundRobinEnumerator<S> restore(SplitEnumeratorContext<S> context,
            SplitSerializer<S> serializer, byte[] state) {
        DataReader in = new DataReader(state);
        int version = in.readVarInt();
        if (version != STATE_VERSION) {
            throw new CorruptDataException("unsupported round-robin enumerator state version " + version);
        }
        int count = in.readVarInt();
        List<S> splits = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            splits.add(serializer.fromBytes(in.readBytes(in.readVarInt())));
        }
        return new RoundRobinEnumerator<>(context, serializer, splits);
    }

    @Override
    public void start() {
        int parallelism = context.parallelism();
        for (int i = 0; i < undealt.size(); i++) {
            context.assignSplit(undealt.get(i), i % parallelism);
        }
        undealt.clear();
        for (int subtask = 0; subtask < parallelism; subtask++) {
            context.signalNoMoreSplits(subtask);
        }
    }

    @Override
    public void handleSplitRequest(int subtask) {
        context.signalNoMoreSplits(subtask);
    }

    @Override
    public void addSplitsBack(List<S> splits, int subtask) {
        for (S split : splits) {
            context.assignSplit(split, subtask);
        }
        context.signalNoMoreSplits(subtask);
    }

    @Override
    public byte[] snapshotState(long checkpointId) {
        DataWriter out = new DataWriter();
        out.writeVarInt(STATE_VERSION);
        out.writeVarInt(undealt.size());
        for (S split : undealt) {
            byte[] bytes = serializer.toBytes(split);
            out.writeVarInt(bytes.length);
            out.writeBytes(bytes);
        }
        return out.toByteArray();
    }
}
