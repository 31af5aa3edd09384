package io.duraflow.state.rocksdb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.api.state.ValueStateDescriptor;
import io.duraflow.api.types.DataWriter;
import io.duraflow.api.types.Tuple2;
import io.duraflow.api.types.Types;
import io.duraflow.config.Configuration;
import io.duraflow.fs.FsPath;
import io.duraflow.fs.LocalFileSystem;
import io.duraflow.state.CheckpointDirectories;
import io.duraflow.state.FileSegmentHandle;
import io.duraflow.state.IncrementalKeyedStateHandle;
import io.duraflow.state.IncrementalKeyedStateHandle.SharedFile;
import io.duraflow.state.KeyGroupRange;
import io.duraflow.state.KeyGroupsStateHandle;
import io.duraflow.state.KeyedStateHandle;
import io.duraflow.state.backend.KeyedBackendParameters;
import io.duraflow.state.backend.KeyedStateBackend;
import io.duraflow.state.backend.SnapshotType;
import io.duraflow.state.backend.StateBackend;
import io.duraflow.state.heap.HeapStateBackend;
import io.duraflow.state.storage.FsCheckpointStorage;
import io.duraflow.util.Murmur;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RunnableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What only the RocksDB backend does: incremental checkpoints, file reuse, clipping, moving state to and from the heap. */
class RocksDBIncrementalCheckpointTest {
    private static final int MAX_PARALLELISM = 128;
    private static final KeyGroupRange ALL = new KeyGroupRange(0, MAX_PARALLELISM - 1);
    private static final ValueStateDescriptor<Tuple2<Long, Long>> SUM =
            new ValueStateDescriptor<>("sum", Types.tuple(Types.LONG, Types.LONG));

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

    private KeyedStateBackend<Long> backend(StateBackend kind, KeyGroupRange range, List<KeyedStateHandle> restore)
            throws IOException {
        KeyedStateBackend<Long> backend = kind.createKeyedStateBackend(new KeyedBackendParameters<>(
                "op " + created.size(), Types.LONG, MAX_PARALLELISM, range, restore, local(created.size())));
        created.add(backend);
        return backend;
    }

    private Path local(int index) {
        return tempDir.resolve("local-" + index);
    }

    private KeyedStateBackend<Long> rocks(KeyGroupRange range, List<KeyedStateHandle> restore) throws IOException {
        return backend(new RocksDBStateBackend(new Configuration()), range, restore);
    }

    private List<KeyedStateHandle> snapshot(KeyedStateBackend<?> backend, SnapshotType type, boolean notify)
            throws Exception {
        long id = nextCheckpointId++;
        RunnableFuture<List<KeyedStateHandle>> future = backend.snapshot(id, id, storage.streamFactory(id), type);
        asyncThread.execute(future);
        List<KeyedStateHandle> handles = future.get(60, TimeUnit.SECONDS);
        if (notify) {
            backend.notifyCheckpointComplete(id);
        }
        return handles;
    }

    private static void write(KeyedStateBackend<Long> backend, long from, long to) {
        for (long key = from; key < to; key++) {
            backend.setCurrentKey(key);
            backend.getState(SUM).update(Tuple2.of(key, key * 3));
        }
    }

    private static void assertHolds(KeyedStateBackend<Long> backend, long from, long to) {
        for (long key = from; key < to; key++) {
            if (backend.keyGroupRange().contains(keyGroupOf(key))) {
                backend.setCurrentKey(key);
                assertThat(backend.getState(SUM).value()).as("key %d", key).isEqualTo(Tuple2.of(key, key * 3));
            }
        }
    }

    private static int keyGroupOf(long key) {
        DataWriter out = new DataWriter();
        Types.LONG.write(key, out);
        return Murmur.keyGroup(out.buffer(), 0, out.position(), MAX_PARALLELISM);
    }

    private static IncrementalKeyedStateHandle only(List<KeyedStateHandle> handles) {
        assertThat(handles).hasSize(1);
        assertThat(handles.get(0)).isInstanceOf(IncrementalKeyedStateHandle.class);
        return (IncrementalKeyedStateHandle) handles.get(0);
    }

    private static Map<String, SharedFile> byName(IncrementalKeyedStateHandle handle) {
        return handle.sharedFiles().stream().collect(Collectors.toMap(SharedFile::name, f -> f));
    }

    @Test
    void anIncrementalCheckpointUploadsOnlyNewSstFilesAndRefersToTheOthers() throws Exception {
        KeyedStateBackend<Long> backend = rocks(ALL, List.of());
        write(backend, 0, 20_000);
        IncrementalKeyedStateHandle first = only(snapshot(backend, SnapshotType.CHECKPOINT, true));
        write(backend, 20_000, 30_000);
        IncrementalKeyedStateHandle second = only(snapshot(backend, SnapshotType.CHECKPOINT, true));

        assertThat(first.reusedFiles()).isZero();
        assertThat(first.sharedFiles()).isNotEmpty();
        Map<String, SharedFile> earlier = byName(first);
        assertThat(second.sharedFiles()).anySatisfy(f -> assertThat(f.reused()).isTrue())
                .anySatisfy(f -> assertThat(f.reused()).isFalse());
        for (SharedFile file : second.sharedFiles()) {
            SharedFile before = earlier.get(file.name());
            assertThat(file.reused()).as(file.name()).isEqualTo(before != null);
            if (before != null) {
                assertThat(file.handle()).isEqualTo(before.handle());
            }
        }
        assertThat(second.checkpointedSize()).isLessThan(second.stateSize());
        assertThat(second.privateFiles()).extracting(IncrementalKeyedStateHandle.PrivateFile::name)
                .anyMatch(name -> name.startsWith("MANIFEST")).contains("CURRENT");

        KeyedStateBackend<Long> restored = rocks(ALL, List.of(second));
        assertHolds(restored, 0, 30_000);
        System.out.printf("incremental checkpoint: %d shared files (%d reused), %d private; %d of %d bytes"
                + " uploaded%n", second.sharedFiles().size(), second.reusedFiles(), second.privateFiles().size(),
                second.checkpointedSize(), second.stateSize());
    }

    @Test
    void aLostNotificationIsCaughtUpByTheNextCompletion() throws Exception {
        RocksDBKeyedStateBackend<Long> backend = (RocksDBKeyedStateBackend<Long>) rocks(ALL, List.of());
        write(backend, 0, 10_000);
        snapshot(backend, SnapshotType.CHECKPOINT, false);
        write(backend, 10_000, 20_000);
        IncrementalKeyedStateHandle second = only(snapshot(backend, SnapshotType.CHECKPOINT, false));
        assertThat(backend.reusableFiles()).as("nothing is known to be complete").isEmpty();

        backend.notifyCheckpointComplete(nextCheckpointId - 1);

        assertThat(backend.reusableFiles()).isEqualTo(byName(second).keySet());
        write(backend, 20_000, 21_000);
        IncrementalKeyedStateHandle third = only(snapshot(backend, SnapshotType.CHECKPOINT, true));
        Map<String, SharedFile> earlier = byName(second);
        assertThat(third.reusedFiles()).isPositive();
        for (SharedFile file : third.sharedFiles()) {
            assertThat(file.reused()).isEqualTo(earlier.containsKey(file.name()));
        }
        backend.notifyCheckpointComplete(1);
        assertThat(backend.reusableFiles()).as("an old notification changes nothing").isEqualTo(byName(third).keySet());
    }

    @Test
    void aFullCheckpointReusesNothing() throws Exception {
        KeyedStateBackend<Long> backend = rocks(ALL, List.of());
        write(backend, 0, 10_000);
        IncrementalKeyedStateHandle first = only(snapshot(backend, SnapshotType.CHECKPOINT, true));

        IncrementalKeyedStateHandle full = only(snapshot(backend, SnapshotType.FULL_CHECKPOINT, true));

        assertThat(full.reusedFiles()).isZero();
        assertThat(full.checkpointedSize()).isEqualTo(full.stateSize());
        Set<Object> firstFiles = first.sharedFiles().stream().map(SharedFile::handle).collect(Collectors.toSet());
        assertThat(full.sharedFiles()).noneMatch(f -> firstFiles.contains(f.handle()));
    }

    @Test
    void aHandleRestoredAsItWasIsReusedUnlessTheFirstCheckpointIsFull() throws Exception {
        KeyedStateBackend<Long> backend = rocks(ALL, List.of());
        write(backend, 0, 10_000);
        IncrementalKeyedStateHandle handle = only(snapshot(backend, SnapshotType.CHECKPOINT, true));

        KeyedStateBackend<Long> claimed = rocks(ALL, List.of(handle));
        IncrementalKeyedStateHandle next = only(snapshot(claimed, SnapshotType.CHECKPOINT, true));
        KeyedStateBackend<Long> noClaim = rocks(ALL, List.of(handle));
        IncrementalKeyedStateHandle full = only(snapshot(noClaim, SnapshotType.FULL_CHECKPOINT, true));

        assertThat(next.reusedFiles()).isEqualTo(handle.sharedFiles().size());
        assertThat(next.backendId()).isNotEqualTo(handle.backendId());
        assertThat(full.reusedFiles()).isZero();
        assertHolds(rocks(ALL, List.of(next)), 0, 10_000);
    }

    @Test
    void restoringFewerKeyGroupsClipsTheOthersAndReusesNoFile() throws Exception {
        KeyedStateBackend<Long> backend = rocks(ALL, List.of());
        write(backend, 0, 5_000);
        int ownedTimers = 0;
        KeyGroupRange firstHalf = KeyGroupRange.ofOperatorIndex(MAX_PARALLELISM, 2, 0);
        for (long key = 0; key < 5_000; key++) {
            backend.timerService().registerTimer(key, 10 + key);
            if (firstHalf.contains(keyGroupOf(key))) {
                ownedTimers++;
            }
        }
        IncrementalKeyedStateHandle handle = only(snapshot(backend, SnapshotType.CHECKPOINT, true));

        RocksDBKeyedStateBackend<Long> half = (RocksDBKeyedStateBackend<Long>) rocks(firstHalf, List.of(handle));

        assertThat(half.timerService().size()).isEqualTo(ownedTimers);
        assertThat(half.reusableFiles()).isEmpty();
        assertHolds(half, 0, 5_000);
        KeyGroupsStateHandle savepoint = (KeyGroupsStateHandle) snapshot(half, SnapshotType.SAVEPOINT, true).get(0);
        KeyedStateBackend<Long> heap = backend(new HeapStateBackend(), ALL, List.of(savepoint));
        for (long key = 0; key < 5_000; key++) {
            heap.setCurrentKey(key);
            assertThat(heap.getState(SUM).value() != null).as("key %d", key).isEqualTo(firstHalf.contains(keyGroupOf(key)));
        }
    }

    @Test
    void aSavepointMovesStateToTheHeapBackendAndAHeapSnapshotMovesItToRocksDB() throws Exception {
        KeyedStateBackend<Long> rocks = rocks(ALL, List.of());
        write(rocks, 0, 3_000);
        rocks.setCurrentKey(7L);
        rocks.getListState(new io.duraflow.api.state.ListStateDescriptor<>("events", Types.STRING)).add("x");
        rocks.timerService().registerTimer(7L, 99);
        List<KeyedStateHandle> savepoint = snapshot(rocks, SnapshotType.SAVEPOINT, true);
        assertThat(savepoint).singleElement().isInstanceOf(KeyGroupsStateHandle.class);

        KeyedStateBackend<Long> heap = backend(new HeapStateBackend(), ALL, savepoint);
        assertHolds(heap, 0, 3_000);
        heap.setCurrentKey(7L);
        assertThat(heap.getListState(new io.duraflow.api.state.ListStateDescriptor<>("events", Types.STRING)).get())
                .containsExactly("x");
        assertThat(heap.timerService().nextTimerTime()).isEqualTo(99);
        write(heap, 3_000, 4_000);

        KeyedStateBackend<Long> back = rocks(ALL, snapshot(heap, SnapshotType.CHECKPOINT, true));
        assertHolds(back, 0, 4_000);
        assertThat(back.timerService().size()).isEqualTo(1);
        assertThat(back.stateNames()).containsExactly("events", "sum");
    }

    @Test
    void aMissingSstFileIsAnErrorNamingIt() throws Exception {
        KeyedStateBackend<Long> backend = rocks(ALL, List.of());
        write(backend, 0, 10_000);
        IncrementalKeyedStateHandle handle = only(snapshot(backend, SnapshotType.CHECKPOINT, true));
        FileSegmentHandle sst = handle.sharedFiles().stream().map(SharedFile::handle)
                .filter(FileSegmentHandle.class::isInstance).map(FileSegmentHandle.class::cast).findFirst().orElseThrow();
        Files.delete(sst.file().toLocalPath());

        assertThatThrownBy(() -> rocks(ALL, List.of(handle))).isInstanceOf(IOException.class)
                .hasMessageContaining(sst.file().toString()).hasMessageContaining("does not exist");
    }

    @Test
    void aSnapshotCancelledBeforeItRanLeavesNoFileLocallyOrInStorage() throws Exception {
        KeyedStateBackend<Long> backend = rocks(ALL, List.of());
        write(backend, 0, 1_000);
        RunnableFuture<List<KeyedStateHandle>> future = backend.snapshot(1, 1, storage.streamFactory(1),
                SnapshotType.CHECKPOINT);
        assertThat(local(0).resolve("chk-1")).isDirectory();

        future.cancel(true);
        future.run();

        assertThat(local(0).resolve("chk-1")).doesNotExist();
        assertThat(tempDir.resolve("checkpoints")).doesNotExist();
    }

    @Test
    void localCheckpointsAreDeletedOnceUploadedAndTheDatabaseOnDispose() throws Exception {
        KeyedStateBackend<Long> backend = rocks(ALL, List.of());
        write(backend, 0, 1_000);
        snapshot(backend, SnapshotType.CHECKPOINT, true);
        snapshot(backend, SnapshotType.SAVEPOINT, true);
        try (Stream<Path> files = Files.list(local(0))) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactly("db");
        }

        backend.dispose();

        assertThat(local(0)).doesNotExist();
    }

    @Test
    void withIncrementalOffEveryCheckpointIsCanonical() throws Exception {
        KeyedStateBackend<Long> backend = backend(new RocksDBStateBackend(Configuration.fromMap(
                Map.of("state.backend.incremental", "false"))), ALL, List.of());
        write(backend, 0, 1_000);

        List<KeyedStateHandle> handles = snapshot(backend, SnapshotType.CHECKPOINT, true);

        assertThat(handles).singleElement().isInstanceOf(KeyGroupsStateHandle.class);
        assertHolds(backend(new HeapStateBackend(), ALL, handles), 0, 1_000);
    }
}
