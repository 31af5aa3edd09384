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
 * Each split is encoded once, when it enters the queue, so a snapshot only copies bytes.
 */
public final class QueueSplitEnumerator<S extends SourceSplit> implements SplitEnumerator<S> {
    private static final int STATE_VERSION = 1;

    private final SplitEnumeratorContext<S> context;
    private final SplitSerializer<S> serializer;
    private final ArrayDeque<Encoded<S>> remaining = new ArrayDeque<>();

    /** A split waiting to be handed out and its serialized form. */
    private record Encoded<S>(S split, byte[] bytes) {}

    public QueueSplitEnumerator(SplitEnumeratorContext<S> context, SplitSerializer<S> serializer,
            Collection<S> splits) {
        this.context = context;
        this.serializer = serializer;
        for (S split : splits) {
            remaining.addLast(encode(split));
        }
    }

    private QueueSplitEnumerator(SplitEnumeratorContext<S> context, SplitSerializer<S> serializer,
            List<Encoded<S>> encoded) {
        this.context = context;
        this.serializer = serializer;
        this.remaining.addAll(encoded);
    }

    public static <S extends SourceSplit> QueueSplitEnumerator<S> restore(SplitEnumeratorContext<S> context,
            SplitSerializer<S> serializer, byte[] state) {
        DataReader in = new DataReader(state);
        int version = in.readVarInt();
        if (version != STATE_VERSION) {
            throw new IllegalArgumentException("unsupported split enumerator state version " + version);
        }
        int count = in.readVarInt();
        List<Encoded<S>> splits = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            byte[] bytes = in.readBytes(in.readVarInt());
            splits.add(new Encoded<>(serializer.fromBytes(bytes), bytes));
        }
        return new QueueSplitEnumerator<>(context, serializer, splits);
    }

    private Encoded<S> encode(S split) {
        return new Encoded<>(split, serializer.toBytes(split));
    }

    @Override
    public void start() {}

    @Override
    public void handleSplitRequest(int subtask) {
        Encoded<S> next = remaining.poll();
        if (next == null) {
            context.signalNoMoreSplits(subtask);
        } else {
            context.assignSplit(next.split(), subtask);
        }
    }

    @Override
    public void addSplitsBack(List<S> splits, int subtask) {
        for (int i = splits.size() - 1; i >= 0; i--) {
            remaining.addFirst(encode(splits.get(i)));
        }
    }

    @Override
    public byte[] snapshotState(long checkpointId) {
        DataWriter out = new DataWriter();
        out.writeVarInt(STATE_VERSION);
        out.writeVarInt(remaining.size());
        for (Encoded<S> next : remaining) {
            out.writeVarInt(next.bytes().length);
            out.writeBytes(next.bytes());
        }
        return out.toByteArray();
    }
}
