package io.duraflow.state.heap;

import io.duraflow.api.types.DataReader;
import io.duraflow.api.types.DataWriter;
import io.duraflow.api.types.TypeSerializer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;

/**
 * How the heap backend keeps one kind of state per key ({@code S}) and writes it in the
 * canonical block format of {@link io.duraflow.state.format.KeyedSnapshotFormat}.
 */
interface StateCodec<S> {
    void write(S state, DataWriter out);

    S read(DataReader in);

    /**
     * A copy made in {@code epoch} ({@link StateTable#epoch()}) that the task may change while the
     * original stays frozen for a snapshot; values, never changed in place, are not copied.
     */
    S copy(S state, int epoch);

    static <T> StateCodec<T> value(TypeSerializer<T> serializer) {
        return new StateCodec<>() {
            @Override
            public void write(T state, DataWriter out) {
                serializer.write(state, out);
            }

            @Override
            public T read(DataReader in) {
                return serializer.read(in);
            }

            @Override
            public T copy(T state, int epoch) {
                return state;
            }
        };
    }

    static <T> StateCodec<ArrayList<T>> list(TypeSerializer<T> serializer) {
        return new StateCodec<>() {
            @Override
            public void write(ArrayList<T> state, DataWriter out) {
                out.writeVarInt(state.size());
                for (T element : state) {
                    serializer.write(element, out);
                }
            }

            @Override
            public ArrayList<T> read(DataReader in) {
                int size = in.readVarInt();
                ArrayList<T> list = new ArrayList<>(size);
                for (int i = 0; i < size; i++) {
                    list.add(serializer.read(in));
                }
                return list;
            }

            @Override
            public ArrayList<T> copy(ArrayList<T> state, int epoch) {
                return new Containers.EpochList<>(epoch, state);
            }
        };
    }

    static <MK, MV> StateCodec<HashMap<MK, MV>> map(TypeSerializer<MK> keySerializer,
            TypeSerializer<MV> valueSerializer) {
        return new StateCodec<>() {
            @Override
            public void write(HashMap<MK, MV> state, DataWriter out) {
                out.writeVarInt(state.size());
                for (Map.Entry<MK, MV> entry : state.entrySet()) {
                    keySerializer.write(entry.getKey(), out);
                    valueSerializer.write(entry.getValue(), out);
                }
            }

            @Override
            public HashMap<MK, MV> read(DataReader in) {
                int size = in.readVarInt();
                HashMap<MK, MV> map = new HashMap<>(Math.max(4, (int) (size / 0.75f) + 1));
                for (int i = 0; i < size; i++) {
                    MK key = keySerializer.read(in);
                    map.put(key, valueSerializer.read(in));
                }
                return map;
            }

            @Override
            public HashMap<MK, MV> copy(HashMap<MK, MV> state, int epoch) {
                return new Containers.EpochMap<>(epoch, state);
            }
        };
    }
}
