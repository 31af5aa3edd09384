package io.duraflow.api.source;

import io.duraflow.api.types.DataReader;
import io.duraflow.api.types.DataWriter;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * Hands out a fixed set of splits first come, first served. Its state is the list of splits
 * not yet handed out, written with the source's split serializer:
 * <pre>
 *   varint version (1) | varint count | count x (varint length | split bytes)
 * </pre>
 */
public final class QueueSplitEnumerator<S extends SourceSplit> implements SplitEnumerator<S> {
    private static final int STATE_VERSION = 1;

    private final SplitEnumeratorContext<S> context;
    private final SplitSerializer<S> serializer;
    private final ArrayDeque<S> remaining;

    public QueueSplitEnumerator(SplitEnumeratorContext<S> context, SplitSerializer<S> serializer,
            Collection<S> splits) {
        this.context = context;
        this.serializer = serializer;
        this.remaining = new ArrayDeque<>(splits);
    }

    public static <S extends SourceSplit> QueueSplitEnumerator<S> restore(SplitEnumeratorContext<S> context,
            SplitSerializer<S> serializer, byte[] state) {
        DataReader in = new DataReader(state);
        int version = in.readVarInt();
        if (version != STATE_VERSION) {
            throw new IllegalArgumentException("unsupported split enumerator state version " + version);
        }
        int count = in.readVarInt();
        List<S> splits = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            splits.add(serializer.fromBytes(in.readBytes(in.readVarInt())));
        }
        return new QueueSplitEnumerator<>(context, serializer, splits);
    }

    @Override
    public void start() {}

    @Override
    public void handleSplitRequest(int subtask) {
        S split = remaining.poll();
        if (split == null) {
            context.signalNoMoreSplits(subtask);
        } else {
            context.assignSplit(split, subtask);
        }
    }

    @Override
    public void addSplitsBack(List<S> splits, int subtask) {
        for (int i = splits.size() - 1; i >= 0; i--) {
            remaining.addFirst(splits.get(i));
        }
    }

    @Override
    public byte[] snapshotState(long checkpointId) {
        DataWriter out = new DataWriter();
        out.writeVarInt(STATE_VERSION);
        out.writeVarInt(remaining.size());
        for (S split : remaining) {
            byte[] bytes = serializer.toBytes(split);
            out.writeVarInt(bytes.length);
            out.writeBytes(bytes);
        }
        return out.toByteArray();
    }

    public int remainingSplits() {
        return remaining.size();
    }
}
