package io.duraflow.state.backend;

import io.duraflow.api.state.ListStateDescriptor;
import io.duraflow.api.state.MapStateDescriptor;
import io.duraflow.api.state.ValueState;
import io.duraflow.api.state.ValueStateDescriptor;
import io.duraflow.api.types.DataWriter;
import io.duraflow.api.types.Tuple2;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.api.types.Types;
import io.duraflow.state.KeyGroupRange;
import io.duraflow.state.KeyedStateHandle;
import io.duraflow.state.storage.CheckpointStreamFactory;
import io.duraflow.util.Murmur;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;

/**
 * What every part of the keyed backend contract works with: backends of the kind under test, made
 * in the test's directories and disposed after it, snapshots through real checkpoint storage, and
 * the three states most tests fill. {@link KeyedStateBackendContractTest} implements the abstract
 * methods, which hold per-test state; the rest is here so that each part sees it.
 */
public interface KeyedStateBackendFixture {
    int MAX_PARALLELISM = 128;
    KeyGroupRange ALL = new KeyGroupRange(0, MAX_PARALLELISM - 1);
    ValueStateDescriptor<Tuple2<Long, Long>> SUM =
            new ValueStateDescriptor<>("sum", Types.tuple(Types.LONG, Types.LONG));
    ListStateDescriptor<String> EVENTS = new ListStateDescriptor<>("events", Types.STRING);
    MapStateDescriptor<String, Long> COUNTS = new MapStateDescriptor<>("counts", Types.STRING, Types.LONG);

    /** The test's temporary directory; checkpoints go to its "checkpoints" directory. */
    Path tempDir();

    /** Bytes up to which snapshot streams are inlined; 0 makes every snapshot a file. */
    int inlineThresholdBytes();

    /** A backend of the kind under test, restored from {@code restore}, disposed after the test. */
    <K> KeyedStateBackend<K> backend(TypeSerializer<K> keySerializer, KeyGroupRange range,
            List<KeyedStateHandle> restore) throws IOException;

    /** A backend of another kind than the one under test (or the same), in this test's directories. */
    <K> KeyedStateBackend<K> backend(StateBackend kind, TypeSerializer<K> keySerializer, KeyGroupRange range,
            List<KeyedStateHandle> restore) throws IOException;

    /**
     * Both parts of a snapshot of {@code type} for the next checkpoint id ({@link #lastCheckpointId()}
     * afterwards), and its completion notification if {@code notify} (false: a lost notification).
     */
    List<KeyedStateHandle> snapshot(KeyedStateBackend<?> backend, SnapshotType type, boolean notify)
            throws Exception;

    /** The id of the checkpoint the last {@link #snapshot} took. */
    long lastCheckpointId();

    /** The stream factory of checkpoint {@code checkpointId} in the test's checkpoint storage. */
    CheckpointStreamFactory streamFactory(long checkpointId);

    /** The thread asynchronous parts run on in {@link #snapshot}. */
    ExecutorService asyncThread();

    default KeyedStateBackend<Long> backend() throws IOException {
        return backend(Types.LONG, ALL, List.of());
    }

    default KeyedStateBackend<Long> restored(KeyGroupRange range, List<KeyedStateHandle> handles)
            throws IOException {
        return backend(Types.LONG, range, handles);
    }

    /** Both parts of a snapshot, the second on the async thread, as a task runs them; then its completion. */
    default List<KeyedStateHandle> snapshot(KeyedStateBackend<?> backend) throws Exception {
        return snapshot(backend, SnapshotType.CHECKPOINT, true);
    }

    default int keyGroupOf(long key) {
        DataWriter out = new DataWriter();
        Types.LONG.write(key, out);
        return Murmur.keyGroup(out.buffer(), 0, out.position(), MAX_PARALLELISM);
    }

    /** Everything the three states hold for {@code key}, as text that compares easily. */
    default String dump(KeyedStateBackend<Long> backend, long key) {
        backend.setCurrentKey(key);
        ValueState<Tuple2<Long, Long>> sum = backend.getState(SUM);
        List<String> events = new ArrayList<>();
        backend.getListState(EVENTS).get().forEach(events::add);
        Map<String, Long> counts = new TreeMap<>();
        backend.getMapState(COUNTS).entries().forEach(e -> counts.put(e.getKey(), e.getValue()));
        return sum.value() + " " + events + " " + counts;
    }

    default void fill(KeyedStateBackend<Long> backend, long key) {
        backend.setCurrentKey(key);
        backend.getState(SUM).update(Tuple2.of(key, key * 2));
        backend.getListState(EVENTS).add("a" + key);
        backend.getListState(EVENTS).add("b" + key);
        backend.getMapState(COUNTS).put("k" + (key % 7), key);
    }
}
