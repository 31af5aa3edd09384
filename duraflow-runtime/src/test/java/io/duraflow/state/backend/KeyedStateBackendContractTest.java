package io.duraflow.state.backend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.duraflow.api.state.ListState;
import io.duraflow.api.state.ListStateDescriptor;
import io.duraflow.api.state.MapState;
import io.duraflow.api.state.MapStateDescriptor;
import io.duraflow.api.state.ValueState;
import io.duraflow.api.state.ValueStateDescriptor;
import io.duraflow.api.types.DataWriter;
import io.duraflow.api.types.Tuple2;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.api.types.Types;
import io.duraflow.config.Configuration;
import io.duraflow.fs.FsPath;
import io.duraflow.fs.LocalFileSystem;
import io.duraflow.state.CheckpointDirectories;
import io.duraflow.state.FileSegmentHandle;
import io.duraflow.state.KeyGroupRange;
import io.duraflow.state.KeyedStateHandle;
import io.duraflow.state.OperatorSubtaskState;
import io.duraflow.state.heap.HeapStateBackend;
import io.duraflow.state.rescale.StateRedistributor;
import io.duraflow.state.rocksdb.RocksDBStateBackend;
import io.duraflow.state.storage.CheckpointOutputStream;
import io.duraflow.state.storage.CheckpointStreamFactory;
import io.duraflow.state.storage.FsCheckpointStorage;
import io.duraflow.util.Murmur;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
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
 * What every {@link KeyedStateBackend} must do, whatever keeps its state: a backend's test extends
 * this class and names its {@link StateBackend} ({@code HeapKeyedStateBackendTest}, {@code
 * RocksDBKeyedStateBackendTest}).
 * Snapshots are written through real checkpoint storage in a temporary directory, their
 * asynchronous part on a thread of their own, as a task does it.
 */
public abstract class KeyedStateBackendContractTest {
    protected static final int MAX_PARALLELISM = 128;
    protected static final KeyGroupRange ALL = new KeyGroupRange(0, MAX_PARALLELISM - 1);
    protected static final ValueStateDescriptor<Tuple2<Long, Long>> SUM =
            new ValueStateDescriptor<>("sum", Types.tuple(Types.LONG, Types.LONG));
    protected static final ListStateDescriptor<String> EVENTS = new ListStateDescriptor<>("events", Types.STRING);
    protected static final MapStateDescriptor<String, Long> COUNTS =
            new MapStateDescriptor<>("counts", Types.STRING, Types.LONG);

    @TempDir
    protected Path tempDir;

    private FsCheckpointStorage storage;
    private ExecutorService asyncThread;
    private final List<KeyedStateBackend<?>> created = new ArrayList<>();
    private long nextCheckpointId = 1;

    /** The backend under test. */
    protected abstract StateBackend stateBackend();

    /** Bytes up to which snapshot streams are inlined; 0 makes every snapshot a file. */
    protected int inlineThresholdBytes() {
        return 0;
    }

    @BeforeEach
    void setUpStorage() {
        storage = new FsCheckpointStorage(LocalFileSystem.INSTANCE,
                CheckpointDirectories.of(FsPath.of(tempDir.resolve("checkpoints")), "job"), inlineThresholdBytes());
        asyncThread = Executors.newSingleThreadExecutor(r -> new Thread(r, "async-snapshot"));
    }

    @AfterEach
    void disposeBackends() {
        created.forEach(KeyedStateBackend::dispose);
        asyncThread.shutdownNow();
    }

    protected <K> KeyedStateBackend<K> backend(TypeSerializer<K> keySerializer, KeyGroupRange range,
            List<KeyedStateHandle> restore) throws IOException {
        return backend(stateBackend(), keySerializer, range, restore);
    }

    /** A backend of another kind than the one under test (or the same), in this test's directories. */
    protected <K> KeyedStateBackend<K> backend(StateBackend kind, TypeSerializer<K> keySerializer, KeyGroupRange range,
            List<KeyedStateHandle> restore) throws IOException {
        Path local = tempDir.resolve("local-" + created.size());
        KeyedStateBackend<K> backend = kind.createKeyedStateBackend(new KeyedBackendParameters<>(
                "test-op " + created.size(), keySerializer, MAX_PARALLELISM, range, restore, local));
        created.add(backend);
        return backend;
    }

    protected KeyedStateBackend<Long> backend() throws IOException {
        return backend(Types.LONG, ALL, List.of());
    }

    protected KeyedStateBackend<Long> restored(KeyGroupRange range, List<KeyedStateHandle> handles) throws IOException {
        return backend(Types.LONG, range, handles);
    }

    /** Both parts of a snapshot, the second on the async thread, as a task runs them; then its completion. */
    protected List<KeyedStateHandle> snapshot(KeyedStateBackend<?> backend) throws Exception {
        return snapshot(backend, SnapshotType.CHECKPOINT, true);
    }

    /**
     * Both parts of a snapshot of {@code type} for the next checkpoint id ({@link #lastCheckpointId()}
     * afterwards), and its completion notification if {@code notify} (false: a lost notification).
     */
    protected List<KeyedStateHandle> snapshot(KeyedStateBackend<?> backend, SnapshotType type, boolean notify)
            throws Exception {
        RunnableFuture<List<KeyedStateHandle>> future = backend.snapshot(nextCheckpointId, 1000 + nextCheckpointId,
                storage.streamFactory(nextCheckpointId), type);
        nextCheckpointId++;
        asyncThread.execute(future);
        List<KeyedStateHandle> handles = future.get(60, TimeUnit.SECONDS);
        if (notify) {
            backend.notifyCheckpointComplete(nextCheckpointId - 1);
        }
        return handles;
    }

    /** The id of the checkpoint the last {@link #snapshot} took. */
    protected long lastCheckpointId() {
        return nextCheckpointId - 1;
    }

    /** The stream factory of checkpoint {@code checkpointId} in the test's checkpoint storage. */
    protected CheckpointStreamFactory streamFactory(long checkpointId) {
        return storage.streamFactory(checkpointId);
    }

    /** The thread asynchronous parts run on in {@link #snapshot}. */
    protected ExecutorService asyncThread() {
        return asyncThread;
    }

    protected static int keyGroupOf(long key) {
        DataWriter out = new DataWriter();
        Types.LONG.write(key, out);
        return Murmur.keyGroup(out.buffer(), 0, out.position(), MAX_PARALLELISM);
    }

    /** Everything the three states hold for {@code key}, as text that compares easily. */
    protected static String dump(KeyedStateBackend<Long> backend, long key) {
        backend.setCurrentKey(key);
        ValueState<Tuple2<Long, Long>> sum = backend.getState(SUM);
        List<String> events = new ArrayList<>();
        backend.getListState(EVENTS).get().forEach(events::add);
        Map<String, Long> counts = new TreeMap<>();
        backend.getMapState(COUNTS).entries().forEach(e -> counts.put(e.getKey(), e.getValue()));
        return sum.value() + " " + events + " " + counts;
    }

    protected static void fill(KeyedStateBackend<Long> backend, long key) {
        backend.setCurrentKey(key);
        backend.getState(SUM).update(Tuple2.of(key, key * 2));
        backend.getListState(EVENTS).add("a" + key);
        backend.getListState(EVENTS).add("b" + key);
        backend.getMapState(COUNTS).put("k" + (key % 7), key);
    }

    // ---- every state type ---------------------------------------------------------------

    @Test
    void valueStateIsPerKeyAndClears() throws IOException {
        KeyedStateBackend<Long> backend = backend();
        ValueState<Tuple2<Long, Long>> sum = backend.getState(SUM);

        backend.setCurrentKey(1L);
        assertThat(sum.value()).isNull();
        sum.update(Tuple2.of(1L, 10L));
        backend.setCurrentKey(2L);
        sum.update(Tuple2.of(2L, 20L));
        backend.setCurrentKey(1L);
        assertThat(sum.value()).isEqualTo(Tuple2.of(1L, 10L));
        sum.clear();
        assertThat(sum.value()).isNull();
        backend.setCurrentKey(2L);
        assertThat(sum.value()).isEqualTo(Tuple2.of(2L, 20L));
        sum.update(null);
        assertThat(sum.value()).isNull();
        assertThat(backend.currentKey()).isEqualTo(2L);
        assertThat(backend.currentKeyGroup()).isEqualTo(keyGroupOf(2L));
    }

    @Test
    void listStateKeepsOrderAddsAllReplacesAndClears() throws IOException {
        KeyedStateBackend<Long> backend = backend();
        ListState<String> events = backend.getListState(EVENTS);

        backend.setCurrentKey(5L);
        assertThat(events.get()).isEmpty();
        events.add("x");
        events.addAll(List.of("y", "z"));
        assertThat(events.get()).containsExactly("x", "y", "z");
        backend.setCurrentKey(6L);
        assertThat(events.get()).isEmpty();
        events.update(List.of("q"));
        backend.setCurrentKey(5L);
        events.update(List.of("r", "s"));
        assertThat(events.get()).containsExactly("r", "s");
        events.clear();
        assertThat(events.get()).isEmpty();
        backend.setCurrentKey(6L);
        assertThat(events.get()).containsExactly("q");
        assertThatThrownBy(() -> events.add(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void mapStatePutsRemovesAndIterates() throws IOException {
        KeyedStateBackend<Long> backend = backend();
        MapState<String, Long> counts = backend.getMapState(COUNTS);

        backend.setCurrentKey(3L);
        assertThat(counts.isEmpty()).isTrue();
        counts.put("a", 1L);
        counts.putAll(Map.of("b", 2L, "c", 3L));
        assertThat(counts.get("b")).isEqualTo(2L);
        assertThat(counts.contains("c")).isTrue();
        assertThat(counts.contains("d")).isFalse();
        counts.remove("b");
        counts.remove("nothing");
        assertThat(counts.keys()).containsExactlyInAnyOrder("a", "c");
        assertThat(counts.values()).containsExactlyInAnyOrder(1L, 3L);
        assertThat(counts.entries()).containsExactlyInAnyOrder(Map.entry("a", 1L), Map.entry("c", 3L));
        backend.setCurrentKey(4L);
        assertThat(counts.isEmpty()).isTrue();
        assertThat(counts.get("a")).isNull();
        backend.setCurrentKey(3L);
        counts.clear();
        assertThat(counts.isEmpty()).isTrue();
        counts.put("z", 9L);
        counts.remove("z");
        assertThat(counts.isEmpty()).isTrue();
    }

    @Test
    void theSameDescriptorGivesTheSameStateAndAnotherDeclarationOfItsNameIsAnError() throws IOException {
        KeyedStateBackend<Long> backend = backend();
        ValueState<Tuple2<Long, Long>> first = backend.getState(SUM);

        assertThat(backend.getState(new ValueStateDescriptor<>("sum", Types.tuple(Types.LONG, Types.LONG))))
                .isSameAs(first);
        assertThatThrownBy(() -> backend.getState(new ValueStateDescriptor<>("sum", Types.STRING)))
                .isInstanceOf(IncompatibleStateException.class).hasMessageContaining("'sum'")
                .hasMessageContaining("value(string)").hasMessageContaining("value(tuple2(long,long))");
        assertThatThrownBy(() -> backend.getListState(new ListStateDescriptor<>("sum", Types.STRING)))
                .isInstanceOf(IncompatibleStateException.class).hasMessageContaining("'sum'");
        assertThat(backend.stateNames()).containsExactly("sum");
    }

    @Test
    void aKeyOutsideTheOwnedKeyGroupsAndStateWithoutAKeyAreErrors() throws IOException {
        KeyedStateBackend<Long> half = backend(Types.LONG, KeyGroupRange.ofOperatorIndex(MAX_PARALLELISM, 2, 0),
                List.of());
        long foreign = 0;
        while (half.keyGroupRange().contains(keyGroupOf(foreign))) {
            foreign++;
        }
        long foreignKey = foreign;
        ValueState<Tuple2<Long, Long>> sum = half.getState(SUM);

        assertThatThrownBy(sum::value).isInstanceOf(IllegalStateException.class).hasMessageContaining("no current key");
        assertThatThrownBy(() -> half.setCurrentKey(foreignKey)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("key group " + keyGroupOf(foreignKey));
    }

    @Test
    void prefetchIsOnlyAHintWhateverKeysItGetsAndWhicheverComeNext() throws IOException {
        KeyedStateBackend<Long> half = backend(Types.LONG, KeyGroupRange.ofOperatorIndex(MAX_PARALLELISM, 2, 0),
                List.of());
        ValueState<Tuple2<Long, Long>> sum = half.getState(SUM);
        List<Long> owned = new ArrayList<>();
        long foreign = -1;
        for (long key = 1000; owned.size() < 40 || foreign < 0; key++) {
            if (half.keyGroupRange().contains(keyGroupOf(key))) {
                owned.add(key);
            } else if (foreign < 0) {
                foreign = key;
            }
        }
        Map<Long, Long> model = new HashMap<>();
        // A batch longer than any backend uses, with a null, a foreign key and a repeated key in it.
        Object[] batch = new Object[40];
        for (int i = 0; i < batch.length; i++) {
            batch[i] = owned.get(i % 25);
        }
        batch[3] = null;
        batch[7] = foreign;
        half.prefetch(batch, batch.length);
        for (int i = 0; i < batch.length; i++) {
            if (i == 3) {
                continue; // a record the selector gave no key: processing it fails, the rest go on
            }
            Long key = (Long) batch[i];
            if (i == 7) {
                assertThatThrownBy(() -> half.setCurrentKey(key)).isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("key group " + keyGroupOf(key));
                continue;
            }
            // Every third key comes as an equal but other object than the prefetched one.
            half.setCurrentKey(i % 3 == 0 ? Long.valueOf(key.longValue() + 0) : key);
            assertThat(half.currentKeyGroup()).isEqualTo(keyGroupOf(key));
            Tuple2<Long, Long> before = sum.value();
            assertThat(before == null ? null : before.f0()).isEqualTo(model.get(key));
            sum.update(Tuple2.of((before == null ? 0 : before.f0()) + i, 1L));
            model.merge(key, (long) i, Long::sum);
        }
        // Keys out of the prefetched order, and a prefetch nobody follows.
        half.prefetch(new Object[] {owned.get(30), owned.get(31)}, 2);
        for (long key : List.of(owned.get(31), owned.get(0), owned.get(30))) {
            half.setCurrentKey(key);
            assertThat(half.currentKeyGroup()).isEqualTo(keyGroupOf(key));
            Tuple2<Long, Long> value = sum.value();
            assertThat(value == null ? null : value.f0()).isEqualTo(model.get(key));
        }
        half.prefetch(new Object[0], 0);
        half.setCurrentKey(owned.get(1));
        assertThat(sum.value().f0()).isEqualTo(model.get(owned.get(1)));

        KeyedStateBackend<String> strings = backend(Types.STRING, ALL, List.of());
        ValueState<Tuple2<Long, Long>> byName = strings.getState(SUM);
        strings.prefetch(new Object[] {"a", 5L, null}, 3);
        strings.setCurrentKey("a");
        byName.update(Tuple2.of(1L, 1L));
        assertThat(byName.value()).isEqualTo(Tuple2.of(1L, 1L));
    }

    @Test
    void prefetchOfStringKeysIsOnlyAHintToo() throws IOException {
        KeyedStateBackend<String> half = backend(Types.STRING, KeyGroupRange.ofOperatorIndex(MAX_PARALLELISM, 2, 0),
                List.of());
        ValueState<Tuple2<Long, Long>> sum = half.getState(SUM);
        ListState<String> seen = half.getListState(new ListStateDescriptor<>("seen", Types.STRING));
        List<String> owned = new ArrayList<>();
        String foreign = null;
        for (int i = 0; owned.size() < 40 || foreign == null; i++) {
            String key = "key-" + i;
            if (half.keyGroupRange().contains(keyGroupOf(key))) {
                owned.add(key);
            } else if (foreign == null) {
                foreign = key;
            }
        }
        Map<String, Long> model = new HashMap<>();
        Object[] batch = new Object[40];
        for (int i = 0; i < batch.length; i++) {
            batch[i] = owned.get(i % 25);
        }
        batch[5] = foreign;
        for (int round = 0; round < 3; round++) {
            half.prefetch(batch, batch.length);
            for (int i = 0; i < batch.length; i++) {
                String key = (String) batch[i];
                if (i == 5) {
                    assertThatThrownBy(() -> half.setCurrentKey(key)).isInstanceOf(IllegalArgumentException.class)
                            .hasMessageContaining("key group " + keyGroupOf(key));
                    continue;
                }
                // Every other key comes as an equal but other object than the prefetched one.
                half.setCurrentKey(i % 2 == 0 ? new String(key) : key);
                assertThat(half.currentKeyGroup()).isEqualTo(keyGroupOf(key));
                Tuple2<Long, Long> before = sum.value();
                assertThat(before == null ? null : before.f0()).isEqualTo(model.get(key));
                sum.update(Tuple2.of((before == null ? 0 : before.f0()) + i, 1L));
                seen.add(Integer.toString(i));
                model.merge(key, (long) i, Long::sum);
            }
        }
        half.setCurrentKey(owned.get(0));
        assertThat(seen.get()).containsExactly("0", "25", "0", "25", "0", "25");
    }

    private static int keyGroupOf(String key) {
        DataWriter out = new DataWriter();
        Types.STRING.write(key, out);
        return Murmur.keyGroup(out.buffer(), 0, out.position(), MAX_PARALLELISM);
    }

    // ---- snapshots and restore -----------------------------------------------------------

    @Test
    void anEmptyBackendSnapshotsToNothing() throws Exception {
        assertThat(snapshot(backend())).isEmpty();
    }

    @Test
    void manyKeysOfEveryStateTypeAreRestoredExactly() throws Exception {
        KeyedStateBackend<Long> backend = backend();
        for (long key = 0; key < 20_000; key++) {
            fill(backend, key);
        }
        for (long key = 0; key < 20_000; key += 3) {
            backend.setCurrentKey(key);
            backend.getState(SUM).clear();
            backend.getMapState(COUNTS).clear();
        }

        List<KeyedStateHandle> handles = snapshot(backend);
        KeyedStateBackend<Long> restored = restored(ALL, handles);

        assertThat(restored.stateNames()).containsExactly("counts", "events", "sum");
        for (long key = 0; key < 20_000; key++) {
            assertThat(dump(restored, key)).isEqualTo(dump(backend, key));
        }
        assertThat(handles).allSatisfy(h -> assertThat(h.keyGroupRange()).isEqualTo(ALL));
    }

    @Test
    void aSnapshotIsNotAffectedByWritesAfterItsSynchronousPart() throws Exception {
        KeyedStateBackend<Long> backend = backend();
        for (long key = 0; key < 1000; key++) {
            fill(backend, key);
        }
        Map<Long, String> before = new HashMap<>();
        for (long key = 0; key < 1000; key++) {
            before.put(key, dump(backend, key));
        }

        RunnableFuture<List<KeyedStateHandle>> future = backend.snapshot(1, 1, storage.streamFactory(1),
                SnapshotType.CHECKPOINT);
        for (long key = 0; key < 1000; key++) {
            backend.setCurrentKey(key);
            if (key % 2 == 0) {
                backend.getState(SUM).update(Tuple2.of(-1L, -1L));
                backend.getListState(EVENTS).add("after");
                backend.getMapState(COUNTS).put("after", 1L);
            } else {
                backend.getState(SUM).clear();
                backend.getListState(EVENTS).clear();
                backend.getMapState(COUNTS).remove("k" + (key % 7));
            }
        }
        backend.setCurrentKey(5000L);
        backend.getState(SUM).update(Tuple2.of(5000L, 0L));
        asyncThread.execute(future);
        KeyedStateBackend<Long> restored = restored(ALL, future.get(60, TimeUnit.SECONDS));

        for (long key = 0; key < 1000; key++) {
            assertThat(dump(restored, key)).isEqualTo(before.get(key));
        }
        assertThat(dump(restored, 5000L)).isEqualTo("null [] {}");
        assertThat(dump(backend, 0L)).contains("after");
    }

    @Test
    void theAsynchronousPartWritesOffTheTaskThread() throws Exception {
        KeyedStateBackend<Long> backend = backend();
        fill(backend, 1L);
        List<String> writers = new ArrayList<>();
        CheckpointStreamFactory real = storage.streamFactory(1);
        CheckpointStreamFactory recording = scope -> {
            synchronized (writers) {
                writers.add(Thread.currentThread().getName());
            }
            return real.createCheckpointOutputStream(scope);
        };

        RunnableFuture<List<KeyedStateHandle>> future = backend.snapshot(1, 1, recording, SnapshotType.CHECKPOINT);
        assertThat(writers).as("the synchronous part writes nothing").isEmpty();
        asyncThread.execute(future);
        assertThat(future.get(60, TimeUnit.SECONDS)).hasSize(1);

        // the thread that runs the future, or a pool it hands the writes to; never the task's thread
        assertThat(writers).isNotEmpty().doesNotContain(Thread.currentThread().getName());
    }

    @Test
    void aSnapshotCancelledBeforeItRanWritesNothing() throws Exception {
        KeyedStateBackend<Long> backend = backend();
        fill(backend, 1L);

        RunnableFuture<List<KeyedStateHandle>> future = backend.snapshot(1, 1, storage.streamFactory(1),
                SnapshotType.CHECKPOINT);
        future.cancel(true);
        future.run();

        assertThat(Files.exists(tempDir.resolve("checkpoints"))).isFalse();
    }

    @Test
    void anInterruptedAsynchronousPartFailsAndDeletesWhatItWrote() throws Exception {
        KeyedStateBackend<Long> backend = backend();
        for (long key = 0; key < 20_000; key++) {
            fill(backend, key);
        }
        CheckpointStreamFactory real = storage.streamFactory(1);
        java.util.concurrent.atomic.AtomicBoolean interrupted = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.atomic.AtomicLong filesWhenInterrupted = new java.util.concurrent.atomic.AtomicLong(-1);
        java.util.concurrent.atomic.AtomicLong written = new java.util.concurrent.atomic.AtomicLong();
        CheckpointStreamFactory interrupting = scope -> new DelegatingStream(real.createCheckpointOutputStream(scope)) {
            @Override
            public void write(byte[] bytes, int offset, int length) throws IOException {
                super.write(bytes, offset, length);
                // late enough that a stream is a file by now (unless this backend inlines it); bytes are
                // counted over all streams, as a backend may write several (one per file)
                if (written.addAndGet(length) > 100_000 && (inlineThresholdBytes() > 0 || countFiles() > 0)
                        && !interrupted.getAndSet(true)) {
                    filesWhenInterrupted.set(countFiles());
                    Thread.currentThread().interrupt();
                }
            }
        };

        RunnableFuture<List<KeyedStateHandle>> future = backend.snapshot(1, 1, interrupting, SnapshotType.CHECKPOINT);
        asyncThread.execute(future);

        assertThatThrownBy(() -> future.get(60, TimeUnit.SECONDS))
                .isInstanceOf(java.util.concurrent.ExecutionException.class);
        assertThat(interrupted).isTrue();
        if (inlineThresholdBytes() == 0) {
            assertThat(filesWhenInterrupted.get()).as("files written before the interruption").isPositive();
        }
        assertThat(countFiles()).isZero();
    }

    private long countFiles() throws IOException {
        Path checkpoints = tempDir.resolve("checkpoints");
        if (!Files.exists(checkpoints)) {
            return 0;
        }
        try (var files = Files.walk(checkpoints)) {
            return files.filter(Files::isRegularFile).count();
        }
    }

    /** Passes everything to another stream; tests override what they watch. */
    protected static class DelegatingStream extends CheckpointOutputStream {
        private final CheckpointOutputStream delegate;

        protected DelegatingStream(CheckpointOutputStream delegate) {
            this.delegate = delegate;
        }

        @Override
        public void write(int b) throws IOException {
            delegate.write(b);
        }

        @Override
        public void write(byte[] bytes, int offset, int length) throws IOException {
            delegate.write(bytes, offset, length);
        }

        @Override
        public long position() throws IOException {
            return delegate.position();
        }

        @Override
        public io.duraflow.state.StreamStateHandle closeAndGetHandle() throws IOException {
            return delegate.closeAndGetHandle();
        }

        @Override
        public void abort() {
            delegate.abort();
        }
    }

    @Test
    void aStateRestoredUnderAnotherDeclarationIsAnErrorNamingIt() throws Exception {
        KeyedStateBackend<Long> backend = backend();
        fill(backend, 1L);
        List<KeyedStateHandle> handles = snapshot(backend);
        KeyedStateBackend<Long> restored = restored(ALL, handles);

        assertThatThrownBy(() -> restored.getState(new ValueStateDescriptor<>("sum", Types.LONG)))
                .isInstanceOf(IncompatibleStateException.class).hasMessageContaining("'sum'")
                .hasMessageContaining("restored as value(tuple2(long,long))")
                .hasMessageContaining("value(long)");
        assertThatThrownBy(() -> restored.getMapState(new MapStateDescriptor<>("events", Types.STRING, Types.STRING)))
                .isInstanceOf(IncompatibleStateException.class).hasMessageContaining("'events'");
        assertThatThrownBy(() -> backend(Types.STRING, ALL, handles)).isInstanceOf(IncompatibleStateException.class)
                .hasMessageContaining("long").hasMessageContaining("string");
    }

    @Test
    void stateRestoredButNotDeclaredIsKeptInLaterSnapshots() throws Exception {
        KeyedStateBackend<Long> backend = backend();
        for (long key = 0; key < 100; key++) {
            fill(backend, key);
        }
        KeyedStateBackend<Long> second = restored(ALL, snapshot(backend));
        second.setCurrentKey(1L);
        second.getState(SUM).update(Tuple2.of(7L, 7L));
        assertThat(second.stateNames()).containsExactly("counts", "events", "sum");

        KeyedStateBackend<Long> third = restored(ALL, snapshot(second));

        for (long key = 0; key < 100; key++) {
            String expected = key == 1 ? Tuple2.of(7L, 7L) + " [a1, b1] {k1=1}" : dump(backend, key);
            assertThat(dump(third, key)).isEqualTo(expected);
        }
    }

    @Test
    void aMissingStateFileIsAnErrorNamingTheFile() throws Exception {
        KeyedStateBackend<Long> backend = backend();
        fill(backend, 1L);
        List<KeyedStateHandle> handles = snapshot(backend);
        FileSegmentHandle file = (FileSegmentHandle) handles.get(0).streams().stream()
                .filter(FileSegmentHandle.class::isInstance).findFirst().orElse(null);
        assumeTrue(file != null, "the snapshot has a file");
        Files.delete(file.file().toLocalPath());

        assertThatThrownBy(() -> restored(ALL, handles)).isInstanceOf(IOException.class)
                .hasMessageContaining(file.file().toString());
    }

    // ---- rescaling -----------------------------------------------------------------------

    @Test
    void rescalingFromTwoToThreeAndFromThreeToOneKeepsEveryKeyWithItsOwner() throws Exception {
        int keys = 3000;
        List<KeyedStateBackend<Long>> two = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            two.add(restored(KeyGroupRange.ofOperatorIndex(MAX_PARALLELISM, 2, i), List.of()));
        }
        Map<Long, String> expected = new HashMap<>();
        for (long key = 0; key < keys; key++) {
            KeyedStateBackend<Long> owner = two.get(KeyGroupRange.operatorIndexOf(MAX_PARALLELISM, 2, keyGroupOf(key)));
            fill(owner, key);
            registerTimersOfBothDomains(owner, key);
            expected.put(key, dump(owner, key));
        }

        // a checkpoint (native where the backend has one), then a savepoint (canonical)
        List<KeyedStateBackend<Long>> three = rescale(two, 3, SnapshotType.CHECKPOINT);
        assertOwnership(three, expected, keys);
        List<KeyedStateBackend<Long>> one = rescale(three, 1, SnapshotType.SAVEPOINT);
        assertOwnership(one, expected, keys);
    }

    /** A processing-time timer at 100 + key and an event-time timer at 5000 + key. */
    private static void registerTimersOfBothDomains(KeyedStateBackend<Long> backend, long key) {
        backend.timerService().registerTimer(key, 100 + key);
        backend.eventTimerService().registerTimer(key, 5000 + key);
    }

    private List<KeyedStateBackend<Long>> rescale(List<KeyedStateBackend<Long>> from, int parallelism,
            SnapshotType type) throws Exception {
        List<OperatorSubtaskState> old = new ArrayList<>();
        for (KeyedStateBackend<Long> backend : from) {
            old.add(new OperatorSubtaskState(snapshot(backend, type, true), List.of()));
        }
        List<OperatorSubtaskState> assigned = StateRedistributor.redistribute(old, parallelism, MAX_PARALLELISM);
        List<KeyedStateBackend<Long>> result = new ArrayList<>();
        for (int i = 0; i < parallelism; i++) {
            result.add(restored(KeyGroupRange.ofOperatorIndex(MAX_PARALLELISM, parallelism, i),
                    assigned.get(i).keyedState()));
        }
        return result;
    }

    private void assertOwnership(List<KeyedStateBackend<Long>> backends, Map<Long, String> expected, int keys)
            throws Exception {
        int parallelism = backends.size();
        int timers = 0;
        int eventTimers = 0;
        for (KeyedStateBackend<Long> backend : backends) {
            timers += backend.timerService().size();
            eventTimers += backend.eventTimerService().size();
        }
        assertThat(timers).isEqualTo(keys);
        assertThat(eventTimers).isEqualTo(keys);
        for (long key = 0; key < keys; key++) {
            int owner = KeyGroupRange.operatorIndexOf(MAX_PARALLELISM, parallelism, keyGroupOf(key));
            assertThat(dump(backends.get(owner), key)).as("key %d at its owner %d", key, owner)
                    .isEqualTo(expected.get(key));
        }
        java.util.Set<Long> firedProcessing = new java.util.HashSet<>();
        java.util.Set<Long> firedEvent = new java.util.HashSet<>();
        for (int i = 0; i < parallelism; i++) {
            int index = i;
            backends.get(i).timerService().fireUpTo(5000 + keys, (key, time) -> {
                assertThat(time).isEqualTo(100 + key);
                assertThat(KeyGroupRange.operatorIndexOf(MAX_PARALLELISM, parallelism, keyGroupOf(key)))
                        .isEqualTo(index);
                assertThat(firedProcessing.add(key)).isTrue();
            });
            backends.get(i).eventTimerService().fireUpTo(5000 + keys, (key, time) -> {
                assertThat(time).isEqualTo(5000 + key);
                assertThat(KeyGroupRange.operatorIndexOf(MAX_PARALLELISM, parallelism, keyGroupOf(key)))
                        .isEqualTo(index);
                assertThat(firedEvent.add(key)).isTrue();
            });
        }
        assertThat(firedProcessing).hasSize(keys);
        assertThat(firedEvent).hasSize(keys);
        // firing consumed the timers of these backends; restore them for the next step from fresh snapshots
        for (int i = 0; i < parallelism; i++) {
            KeyedStateBackend<Long> backend = backends.get(i);
            for (long key = 0; key < keys; key++) {
                if (backend.keyGroupRange().contains(keyGroupOf(key))) {
                    registerTimersOfBothDomains(backend, key);
                }
            }
        }
    }

    // ---- timers --------------------------------------------------------------------------

    @Test
    void timersFireInTimeOrderOncePerKeyAndTimeWithTheirKeyCurrent() throws Exception {
        KeyedStateBackend<Long> backend = backend();
        InternalTimerService<Long> timers = backend.timerService();
        assertThat(timers.nextTimerTime()).isEqualTo(InternalTimerService.NO_TIMER);
        timers.registerTimer(1L, 30);
        timers.registerTimer(2L, 10);
        timers.registerTimer(2L, 10);
        timers.registerTimer(3L, 20);
        timers.registerTimer(3L, 40);
        timers.deleteTimer(3L, 40);
        timers.deleteTimer(3L, 99);
        assertThat(timers.size()).isEqualTo(3);
        assertThat(timers.nextTimerTime()).isEqualTo(10);

        List<String> fired = new ArrayList<>();
        int count = timers.fireUpTo(25, (key, time) -> {
            assertThat(backend.currentKey()).isEqualTo(key);
            fired.add(key + "@" + time);
            if (key == 2L && time == 10) {
                timers.registerTimer(2L, 15);
                timers.registerTimer(2L, 50);
            }
        });

        assertThat(fired).containsExactly("2@10", "2@15", "3@20");
        assertThat(count).isEqualTo(3);
        assertThat(timers.nextTimerTime()).isEqualTo(30);
        assertThat(timers.size()).isEqualTo(2);
        timers.deleteTimer(1L, 30);
        assertThat(timers.nextTimerTime()).isEqualTo(50);
    }

    @Test
    void timersSurviveSnapshotAndRestore() throws Exception {
        KeyedStateBackend<Long> backend = backend();
        for (long key = 0; key < 500; key++) {
            backend.timerService().registerTimer(key, 1000 - key);
            backend.timerService().registerTimer(key, 2000);
        }
        backend.timerService().deleteTimer(7L, 2000);

        KeyedStateBackend<Long> restored = restored(ALL, snapshot(backend));

        assertThat(restored.timerService().size()).isEqualTo(999);
        assertThat(restored.timerService().nextTimerTime()).isEqualTo(501);
        List<String> fired = new ArrayList<>();
        restored.timerService().fireUpTo(3000, (key, time) -> fired.add(key + "@" + time));
        assertThat(fired).hasSize(999).startsWith("499@501", "498@502").doesNotContain("7@2000").contains("8@2000");
    }

    @Test
    void timersAloneAreSnapshotted() throws Exception {
        KeyedStateBackend<Long> backend = backend();
        backend.timerService().registerTimer(42L, 5);

        KeyedStateBackend<Long> restored = restored(ALL, snapshot(backend));

        assertThat(restored.timerService().nextTimerTime()).isEqualTo(5);
    }

    // ---- event-time timers ---------------------------------------------------------------

    @Test
    void eventTimersFireInTimeOrderOncePerKeyAndTimeWithTheirKeyCurrent() throws Exception {
        KeyedStateBackend<Long> backend = backend();
        InternalTimerService<Long> timers = backend.eventTimerService();
        assertThat(timers.nextTimerTime()).isEqualTo(InternalTimerService.NO_TIMER);
        timers.registerTimer(1L, 30);
        timers.registerTimer(2L, 10);
        timers.registerTimer(2L, 10);
        timers.registerTimer(3L, 20);
        timers.registerTimer(3L, 40);
        timers.registerTimer(4L, Long.MIN_VALUE);
        timers.deleteTimer(3L, 40);
        timers.deleteTimer(3L, 99);
        assertThat(timers.size()).isEqualTo(4);
        assertThat(timers.nextTimerTime()).isEqualTo(Long.MIN_VALUE);

        List<String> fired = new ArrayList<>();
        int count = timers.fireUpTo(25, (key, time) -> {
            assertThat(backend.currentKey()).isEqualTo(key);
            fired.add(key + "@" + time);
            if (key == 2L && time == 10) {
                timers.registerTimer(2L, 15);
                timers.registerTimer(2L, 25);
                timers.registerTimer(2L, 50);
                timers.registerTimer(5L, 5);
            }
        });

        assertThat(fired).containsExactly("4@" + Long.MIN_VALUE, "2@10", "5@5", "2@15", "3@20", "2@25");
        assertThat(count).isEqualTo(6);
        assertThat(timers.nextTimerTime()).isEqualTo(30);
        assertThat(timers.size()).isEqualTo(2);
        timers.deleteTimer(1L, 30);
        assertThat(timers.nextTimerTime()).isEqualTo(50);
        assertThat(timers.fireUpTo(Long.MAX_VALUE, (key, time) -> fired.add(key + "@" + time))).isEqualTo(1);
        assertThat(fired).endsWith("2@50");
        assertThat(timers.size()).isZero();
        assertThat(backend.timerService().size()).as("processing-time timers").isZero();
    }

    @Test
    void theTwoTimerDomainsAreIndependentAlsoThroughSnapshots() throws Exception {
        KeyedStateBackend<Long> backend = backend();
        backend.timerService().registerTimer(1L, 10);
        backend.eventTimerService().registerTimer(1L, 10);
        backend.eventTimerService().registerTimer(2L, 20);
        assertThat(backend.timerService().size()).isEqualTo(1);
        assertThat(backend.eventTimerService().size()).isEqualTo(2);
        backend.timerService().deleteTimer(2L, 20);
        assertThat(backend.eventTimerService().size()).as("deleting in the other domain").isEqualTo(2);

        for (SnapshotType type : SnapshotType.values()) {
            KeyedStateBackend<Long> restored = restored(ALL, snapshot(backend, type, true));

            assertThat(firedAll(restored.timerService())).as("%s", type).containsExactly("1@10");
            assertThat(firedAll(restored.eventTimerService())).as("%s", type).containsExactly("1@10", "2@20");
        }
        backend.eventTimerService().deleteTimer(1L, 10);
        assertThat(backend.timerService().nextTimerTime()).isEqualTo(10);
        assertThat(firedAll(backend.eventTimerService())).containsExactly("2@20");
        assertThat(firedAll(backend.timerService())).containsExactly("1@10");
    }

    /** Fires every timer of {@code timers}, as "key@time" in firing order. */
    private static List<String> firedAll(InternalTimerService<Long> timers) throws Exception {
        List<String> fired = new ArrayList<>();
        timers.fireUpTo(Long.MAX_VALUE, (key, time) -> fired.add(key + "@" + time));
        return fired;
    }

    @Test
    void eventTimersSurviveEverySnapshotTypeAndLaterIncrementalOnes() throws Exception {
        KeyedStateBackend<Long> backend = backend();
        for (long key = 0; key < 500; key++) {
            backend.eventTimerService().registerTimer(key, 1000 - key);
            backend.eventTimerService().registerTimer(key, 2000);
        }
        backend.eventTimerService().deleteTimer(7L, 2000);

        for (SnapshotType type : SnapshotType.values()) {
            KeyedStateBackend<Long> restored = restored(ALL, snapshot(backend, type, true));

            assertThat(restored.eventTimerService().size()).as("%s", type).isEqualTo(999);
            assertThat(restored.eventTimerService().nextTimerTime()).isEqualTo(501);
            assertThat(restored.timerService().size()).isZero();
        }
        // a checkpoint after changes (incremental where the backend has them) holds the changes
        backend.eventTimerService().fireUpTo(600, (key, time) -> { });
        backend.eventTimerService().registerTimer(9999L, 3000);
        KeyedStateBackend<Long> restored = restored(ALL, snapshot(backend));
        List<String> fired = firedAll(restored.eventTimerService());
        assertThat(fired).hasSize(400 + 499 + 1).startsWith("399@601", "398@602").doesNotContain("7@2000")
                .contains("8@2000").endsWith("9999@3000");
    }

    @Test
    void eventTimersAloneAreSnapshotted() throws Exception {
        KeyedStateBackend<Long> backend = backend();
        backend.eventTimerService().registerTimer(42L, 5);

        KeyedStateBackend<Long> restored = restored(ALL, snapshot(backend));

        assertThat(restored.eventTimerService().nextTimerTime()).isEqualTo(5);
        assertThat(restored.timerService().nextTimerTime()).isEqualTo(InternalTimerService.NO_TIMER);
    }

    @Test
    void aSavepointMovesTimersOfBothDomainsToEitherBackendAndBack() throws Exception {
        KeyedStateBackend<Long> backend = backend();
        for (long key = 0; key < 300; key++) {
            fill(backend, key);
            backend.timerService().registerTimer(key, 100 + key);
            backend.eventTimerService().registerTimer(key, 1000 + key);
        }
        for (StateBackend other : List.of(new HeapStateBackend(), new RocksDBStateBackend(new Configuration()))) {
            KeyedStateBackend<Long> there = backend(other, Types.LONG, ALL,
                    snapshot(backend, SnapshotType.SAVEPOINT, true));
            there.eventTimerService().registerTimer(1000L, 7);
            KeyedStateBackend<Long> back = restored(ALL, snapshot(there, SnapshotType.SAVEPOINT, true));

            for (long key = 0; key < 300; key++) {
                assertThat(dump(back, key)).as("%s, key %d", other.name(), key).isEqualTo(dump(backend, key));
            }
            List<String> processing = firedAll(back.timerService());
            List<String> event = firedAll(back.eventTimerService());
            assertThat(processing).as(other.name()).hasSize(300).startsWith("0@100").endsWith("299@399");
            assertThat(event).as(other.name()).hasSize(301).startsWith("1000@7", "0@1000").endsWith("299@1299");
        }
    }

    @Test
    void aVersionOneSnapshotRestoresItsTimersAsProcessingTimeTimersAndNoEventTimers() throws Exception {
        ValueStateDescriptor<Long> count = new ValueStateDescriptor<>("count", Types.LONG);
        long key = 7;
        int keyGroup = keyGroupOf(key);
        KeyedStateBackend<Long> backend = restored(ALL, List.of(versionOneSnapshot(keyGroup)));

        backend.setCurrentKey(key);
        assertThat(backend.getState(count).value()).isEqualTo(9L);
        assertThat(firedAll(backend.timerService())).containsExactly("7@1000");
        assertThat(backend.eventTimerService().size()).isZero();
    }

    /**
     * A one-key-group stream as version 1 of the canonical format wrote it: value state "count" of
     * long, key 7 with value 9 and a timer (id 0) at 1000 (see checkpoint-files.md).
     */
    private static io.duraflow.state.KeyGroupsStateHandle versionOneSnapshot(int keyGroup) {
        DataWriter body = new DataWriter();
        body.writeString("long");
        body.writeVarInt(MAX_PARALLELISM);
        body.writeVarInt(1);
        body.writeString("count");
        body.writeByte(1);
        body.writeString("value(long)");
        DataWriter payload = new DataWriter();
        payload.writeVarInt(1); // state 1 in version 1
        payload.writeVarInt(3);
        payload.writeVarInt(1);
        Types.LONG.write(7L, payload);
        Types.LONG.write(9L, payload);
        payload.writeVarInt(0); // timers
        payload.writeVarInt(10);
        payload.writeVarInt(1);
        Types.LONG.write(7L, payload);
        payload.writeLong(1000);
        DataWriter stream = new DataWriter();
        stream.writeInt(0x44464B53);
        stream.writeInt(1);
        stream.writeInt(body.position());
        stream.writeBytes(body.buffer(), 0, body.position());
        stream.writeInt(crc32c(body));
        long offset = stream.position();
        stream.writeInt(keyGroup);
        stream.writeInt(payload.position());
        stream.writeInt(crc32c(payload));
        stream.writeBytes(payload.buffer(), 0, payload.position());
        return new io.duraflow.state.KeyGroupsStateHandle(new KeyGroupRange(keyGroup, keyGroup), new long[] {offset},
                new io.duraflow.state.InlineStateHandle(stream.toByteArray()));
    }

    private static int crc32c(DataWriter bytes) {
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(bytes.buffer(), 0, bytes.position());
        return (int) crc.getValue();
    }

    // ---- random operations against a model (a seeded property test) ---------------------

    @Test
    void randomOperationsMatchAModelThroughSnapshotsAndRestores() throws Exception {
        for (long seed = 1; seed <= 5; seed++) {
            runRandomOperations(seed);
        }
    }

    private void runRandomOperations(long seed) throws Exception {
        Random random = new Random(seed);
        KeyedStateBackend<Long> backend = backend();
        Map<Long, Tuple2<Long, Long>> sums = new HashMap<>();
        Map<Long, List<String>> events = new HashMap<>();
        Map<Long, Map<String, Long>> counts = new HashMap<>();
        for (int step = 0; step < 3000; step++) {
            long key = random.nextInt(200);
            backend.setCurrentKey(key);
            switch (random.nextInt(9)) {
                case 0 -> {
                    Tuple2<Long, Long> value = Tuple2.of(random.nextLong(), (long) step);
                    backend.getState(SUM).update(value);
                    sums.put(key, value);
                }
                case 1 -> {
                    backend.getState(SUM).clear();
                    sums.remove(key);
                }
                case 2 -> {
                    backend.getListState(EVENTS).add("e" + step);
                    events.computeIfAbsent(key, k -> new ArrayList<>()).add("e" + step);
                }
                case 3 -> {
                    List<String> list = random.nextBoolean() ? List.of() : List.of("u" + step, "v" + step);
                    backend.getListState(EVENTS).update(list);
                    if (list.isEmpty()) {
                        events.remove(key);
                    } else {
                        events.put(key, new ArrayList<>(list));
                    }
                }
                case 4 -> {
                    String mapKey = "m" + random.nextInt(5);
                    backend.getMapState(COUNTS).put(mapKey, (long) step);
                    counts.computeIfAbsent(key, k -> new HashMap<>()).put(mapKey, (long) step);
                }
                case 5 -> {
                    String mapKey = "m" + random.nextInt(5);
                    backend.getMapState(COUNTS).remove(mapKey);
                    Map<String, Long> map = counts.get(key);
                    if (map != null) {
                        map.remove(mapKey);
                        if (map.isEmpty()) {
                            counts.remove(key);
                        }
                    }
                }
                case 6 -> {
                    backend.getMapState(COUNTS).clear();
                    counts.remove(key);
                }
                case 7 -> {
                    if (random.nextInt(20) == 0) {
                        backend = restored(ALL, snapshot(backend));
                    }
                }
                default -> {
                    // reads in between, checked below
                }
            }
            if (random.nextInt(50) == 0 || step == 2999) {
                for (long k = 0; k < 200; k++) {
                    backend.setCurrentKey(k);
                    assertThat(backend.getState(SUM).value()).as("seed %d step %d key %d", seed, step, k)
                            .isEqualTo(sums.get(k));
                    assertThat(backend.getListState(EVENTS).get()).as("seed %d step %d key %d", seed, step, k)
                            .containsExactlyElementsOf(events.getOrDefault(k, List.of()));
                    Map<String, Long> actual = new HashMap<>();
                    backend.getMapState(COUNTS).entries().forEach(e -> actual.put(e.getKey(), e.getValue()));
                    assertThat(actual).as("seed %d step %d key %d", seed, step, k)
                            .isEqualTo(counts.getOrDefault(k, Map.of()));
                }
            }
        }
    }
}
