package io.duraflow.state.rocksdb;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.api.state.ListStateDescriptor;
import io.duraflow.api.state.MapState;
import io.duraflow.api.state.MapStateDescriptor;
import io.duraflow.api.state.ValueState;
import io.duraflow.api.state.ValueStateDescriptor;
import io.duraflow.api.types.Tuple2;
import io.duraflow.api.types.Types;
import io.duraflow.config.Configuration;
import io.duraflow.fs.FsPath;
import io.duraflow.fs.LocalFileSystem;
import io.duraflow.state.CheckpointDirectories;
import io.duraflow.state.IncrementalKeyedStateHandle;
import io.duraflow.state.KeyGroupRange;
import io.duraflow.state.KeyGroupsStateHandle;
import io.duraflow.state.KeyedStateHandle;
import io.duraflow.state.backend.KeyedBackendParameters;
import io.duraflow.state.backend.KeyedStateBackend;
import io.duraflow.state.backend.SnapshotType;
import io.duraflow.state.backend.StateBackend;
import io.duraflow.state.heap.HeapStateBackend;
import io.duraflow.state.storage.FsCheckpointStorage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RunnableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The RocksDB backend with its write-back cache: dirty values reach every kind of snapshot, a small
 * cache evicts without losing a write, and map iteration, map clear and list appends see cached
 * writes. (The backend contract suite runs with the default cache, a 64 kb one and none.)
 */
class RocksDBWriteBackCacheTest {
    private static final int MAX_PARALLELISM = 128;
    private static final KeyGroupRange ALL = new KeyGroupRange(0, MAX_PARALLELISM - 1);
    private static final ValueStateDescriptor<Tuple2<Long, Long>> SUM =
            new ValueStateDescriptor<>("sum", Types.tuple(Types.LONG, Types.LONG));
    private static final ListStateDescriptor<String> EVENTS = new ListStateDescriptor<>("events", Types.STRING);
    private static final MapStateDescriptor<String, Long> COUNTS =
            new MapStateDescriptor<>("counts", Types.STRING, Types.LONG);

    @TempDir
    Path tempDir;

    private FsCheckpointStorage storage;
    private ExecutorService asyncThread;
    private final List<KeyedStateBackend<?>> created = new ArrayList<>();
    private long nextCheckpointId = 1;

    @BeforeEach
    void setUp() {
        storage = new FsCheckpointStorage(LocalFileSystem.INSTANCE,
                CheckpointDirectories.of(FsPath.of(tempDir.resolve("checkpoints")), "job"), 0);
        asyncThread = Executors.newSingleThreadExecutor(r -> new Thread(r, "async-snapshot"));
    }

    @AfterEach
    void tearDown() {
        created.forEach(KeyedStateBackend::dispose);
        asyncThread.shutdownNow();
    }

    private static StateBackend rocksdb(String cacheSize) {
        return new RocksDBStateBackend(Configuration.fromMap(Map.of("state.backend.rocksdb.write-back-cache.size",
                cacheSize)));
    }

    private KeyedStateBackend<Long> backend(StateBackend kind, KeyGroupRange range, List<KeyedStateHandle> restore)
            throws IOException {
        KeyedStateBackend<Long> backend = kind.createKeyedStateBackend(new KeyedBackendParameters<>(
                "test-op " + created.size(), Types.LONG, MAX_PARALLELISM, range, restore,
                tempDir.resolve("local-" + created.size())));
        created.add(backend);
        return backend;
    }

    private List<KeyedStateHandle> snapshot(KeyedStateBackend<?> backend, SnapshotType type) throws Exception {
        RunnableFuture<List<KeyedStateHandle>> future = backend.snapshot(nextCheckpointId, nextCheckpointId,
                storage.streamFactory(nextCheckpointId), type);
        nextCheckpointId++;
        asyncThread.execute(future);
        List<KeyedStateHandle> handles = future.get(60, TimeUnit.SECONDS);
        backend.notifyCheckpointComplete(nextCheckpointId - 1);
        return handles;
    }

    private static WriteBackCache cacheOf(KeyedStateBackend<Long> backend) {
        return ((RocksDBKeyedStateBackend<Long>) backend).store().cache();
    }

    /** Writes all three states of {@code key}, {@code round} making the values differ. */
    private static void write(KeyedStateBackend<Long> backend, long key, int round) {
        backend.setCurrentKey(key);
        ValueState<Tuple2<Long, Long>> sum = backend.getState(SUM);
        Tuple2<Long, Long> old = sum.value();
        sum.update(Tuple2.of(key + round, old == null ? 1 : old.f1() + 1));
        backend.getListState(EVENTS).add("r" + round);
        backend.getMapState(COUNTS).put("m" + (key % 3), (long) round);
    }

    private static String dump(KeyedStateBackend<Long> backend, long key) {
        backend.setCurrentKey(key);
        List<String> events = new ArrayList<>();
        backend.getListState(EVENTS).get().forEach(events::add);
        Map<String, Long> counts = new TreeMap<>();
        backend.getMapState(COUNTS).entries().forEach(e -> counts.put(e.getKey(), e.getValue()));
        return backend.getState(SUM).value() + " " + events + " " + counts;
    }

    private static Map<Long, String> dumpAll(KeyedStateBackend<Long> backend, int keys) {
        Map<Long, String> all = new TreeMap<>();
        for (long key = 0; key < keys; key++) {
            all.put(key, dump(backend, key));
        }
        return all;
    }

    @Test
    void dirtyValuesGoIntoNativeCheckpointsAndCanonicalSavepoints() throws Exception {
        KeyedStateBackend<Long> backend = backend(rocksdb("16 mb"), ALL, List.of());
        for (long key = 0; key < 1000; key++) {
            write(backend, key, 1);
        }
        Map<Long, String> expected = dumpAll(backend, 1000);
        for (long key = 0; key < 1000; key += 2) {
            write(backend, key, 2);
        }
        expected = dumpAll(backend, 1000);
        assertThat(cacheOf(backend).dirtyCount()).as("the writes are only in the cache").isPositive();

        List<KeyedStateHandle> checkpoint = snapshot(backend, SnapshotType.CHECKPOINT);
        assertThat(cacheOf(backend).dirtyCount()).as("the synchronous part wrote them back").isZero();
        write(backend, 1L, 3);
        List<KeyedStateHandle> savepoint = snapshot(backend, SnapshotType.SAVEPOINT);

        assertThat(checkpoint.get(0)).isInstanceOf(IncrementalKeyedStateHandle.class);
        assertThat(savepoint.get(0)).isInstanceOf(KeyGroupsStateHandle.class);
        assertThat(dumpAll(backend(rocksdb("0 bytes"), ALL, checkpoint), 1000)).isEqualTo(expected);
        assertThat(dumpAll(backend(rocksdb("16 mb"), ALL, checkpoint), 1000)).isEqualTo(expected);
        expected.put(1L, dump(backend, 1L));
        assertThat(dumpAll(backend(new HeapStateBackend(), ALL, savepoint), 1000))
                .isEqualTo(expected);
        assertThat(dumpAll(backend(rocksdb("64 kb"), ALL, savepoint), 1000)).isEqualTo(expected);
    }

    @Test
    void aSmallCacheEvictsWithinItsBoundAndLosesNoWrite() throws Exception {
        KeyedStateBackend<Long> backend = backend(rocksdb("64 kb"), ALL, List.of());
        int keys = 5000;
        for (int round = 1; round <= 3; round++) {
            for (long key = 0; key < keys; key++) {
                write(backend, key * 7 % keys, round);
            }
        }
        WriteBackCache cache = cacheOf(backend);
        assertThat(cache.evictions()).isGreaterThan(keys);
        assertThat(cache.bytes()).isLessThanOrEqualTo(cache.maxBytes());
        Map<Long, String> expected = dumpAll(backend, keys);
        assertThat(expected.get(10L)).isEqualTo("(13,3) [r1, r2, r3] {m1=3}");

        KeyedStateBackend<Long> restored = backend(rocksdb("64 kb"), ALL, snapshot(backend, SnapshotType.CHECKPOINT));
        assertThat(dumpAll(restored, keys)).isEqualTo(expected);
    }

    @Test
    void rescalingASnapshotTakenWithDirtyValuesGivesEveryKeyToItsOwner() throws Exception {
        KeyedStateBackend<Long> backend = backend(rocksdb("16 mb"), ALL, List.of());
        for (long key = 0; key < 2000; key++) {
            write(backend, key, 1);
        }
        Map<Long, String> expected = dumpAll(backend, 2000);
        for (SnapshotType type : List.of(SnapshotType.CHECKPOINT, SnapshotType.SAVEPOINT)) {
            write(backend, 5L, 9);
            expected.put(5L, dump(backend, 5L));
            List<KeyedStateHandle> handles = snapshot(backend, type);
            for (int index = 0; index < 2; index++) {
                KeyGroupRange range = KeyGroupRange.ofOperatorIndex(MAX_PARALLELISM, 2, index);
                KeyedStateBackend<Long> part = backend(rocksdb("64 kb"), range, handles);
                for (long key = 0; key < 2000; key++) {
                    if (range.contains(ownerGroup(key))) {
                        assertThat(dump(part, key)).as("%s key %d", type, key).isEqualTo(expected.get(key));
                    }
                }
            }
        }
    }

    private static int ownerGroup(long key) {
        io.duraflow.api.types.DataWriter out = new io.duraflow.api.types.DataWriter();
        Types.LONG.write(key, out);
        return io.duraflow.util.Murmur.keyGroup(out.buffer(), 0, out.position(), MAX_PARALLELISM);
    }

    @Test
    void mapIterationAndClearSeeCachedWrites() throws Exception {
        KeyedStateBackend<Long> backend = backend(rocksdb("16 mb"), ALL, List.of());
        backend.setCurrentKey(7L);
        MapState<String, Long> map = backend.getMapState(COUNTS);
        map.put("a", 1L);
        map.put("b", 2L);
        assertThat(map.get("a")).isEqualTo(1L);
        assertThat(map.isEmpty()).isFalse();
        map.put("c", 3L);
        map.remove("b");
        Map<String, Long> seen = new TreeMap<>();
        map.entries().forEach(e -> seen.put(e.getKey(), e.getValue()));
        assertThat(seen).containsExactly(Map.entry("a", 1L), Map.entry("c", 3L));

        map.put("d", 4L);
        map.clear();
        assertThat(map.get("a")).as("a cached entry is gone with the clear").isNull();
        assertThat(map.contains("d")).isFalse();
        assertThat(map.isEmpty()).isTrue();
        map.put("e", 5L);
        assertThat(map.keys()).containsExactly("e");

        KeyedStateBackend<Long> restored = backend(rocksdb("0 bytes"), ALL, snapshot(backend, SnapshotType.CHECKPOINT));
        restored.setCurrentKey(7L);
        assertThat(restored.getMapState(COUNTS).keys()).containsExactly("e");
    }

    @Test
    void listAppendsGoToACachedListOrAreMergedInTheDatabase() throws Exception {
        KeyedStateBackend<Long> backend = backend(rocksdb("16 mb"), ALL, List.of());
        backend.setCurrentKey(1L);
        backend.getListState(EVENTS).add("merged");
        backend.getListState(EVENTS).add("in the database");
        assertThat(backend.getListState(EVENTS).get()).containsExactly("merged", "in the database");
        backend.getListState(EVENTS).add("cached");
        backend.getListState(EVENTS).addAll(List.of("x", "y"));
        assertThat(backend.getListState(EVENTS).get()).containsExactly("merged", "in the database", "cached", "x", "y");
        backend.getListState(EVENTS).clear();
        backend.getListState(EVENTS).add("after clear");
        assertThat(backend.getListState(EVENTS).get()).containsExactly("after clear");

        KeyedStateBackend<Long> restored = backend(rocksdb("0 bytes"), ALL, snapshot(backend, SnapshotType.CHECKPOINT));
        restored.setCurrentKey(1L);
        assertThat(restored.getListState(EVENTS).get()).containsExactly("after clear");
    }
}
