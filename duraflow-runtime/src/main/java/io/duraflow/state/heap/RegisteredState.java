package io.duraflow.state.heap;

import io.duraflow.api.types.DataReader;
import io.duraflow.api.types.DataWriter;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.state.format.KeyedSnapshotFormat.StateMeta;
import java.util.Map;

/** A declared state of the heap backend: what it is, its entries, and how they are written. */
final class RegisteredState<K, S> {
    final StateMeta meta;
    final StateTable<K, S> table;
    final StateCodec<S> codec;

    RegisteredState(StateMeta meta, StateTable<K, S> table, StateCodec<S> codec) {
        this.meta = meta;
        this.table = table;
        this.codec = codec;
    }

    /** Adds the entries of a restored block (canonical format) to {@code keyGroup}. */
    void restoreBlock(int keyGroup, byte[] block, TypeSerializer<K> keySerializer) {
        DataReader in = new DataReader(block);
        int count = in.readVarInt();
        Map<K, S> map = table.writable(keyGroup);
        for (int i = 0; i < count; i++) {
            K key = keySerializer.read(in);
            map.put(key, codec.read(in));
        }
        if (in.hasRemaining()) {
            throw new io.duraflow.api.types.CorruptDataException(in.remaining() + " bytes left after " + count
                    + " entries");
        }
    }

    /** Writes a frozen key group as a block; false (nothing written) when it has no entries. */
    static <K, S> boolean writeBlock(Map<K, S> group, TypeSerializer<K> keySerializer, StateCodec<S> codec,
            DataWriter out) {
        if (group.isEmpty()) {
            return false;
        }
        if (group instanceof LongKeyMap<?> longKeys && keySerializer == io.duraflow.api.types.Types.LONG) {
            @SuppressWarnings("unchecked")
            LongKeyMap<S> entries = (LongKeyMap<S>) longKeys;
            entries.writeEntries(codec, out); // the same bytes, without an entry object and a boxed key each
            return true;
        }
        out.writeVarInt(group.size());
        for (Map.Entry<K, S> entry : group.entrySet()) {
            keySerializer.write(entry.getKey(), out);
            codec.write(entry.getValue(), out);
        }
        return true;
    }
}
