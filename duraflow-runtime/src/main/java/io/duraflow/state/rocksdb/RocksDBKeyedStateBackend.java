package io.duraflow.state.rocksdb;

import io.duraflow.api.state.ListState;
import io.duraflow.api.state.ListStateDescriptor;
import io.duraflow.api.state.MapState;
import io.duraflow.api.state.MapStateDescriptor;
import io.duraflow.api.state.StateDescriptor;
import io.duraflow.api.state.ValueState;
import io.duraflow.api.state.ValueStateDescriptor;
import io.duraflow.api.types.CorruptDataException;
import io.duraflow.api.types.DataWriter;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.state.IncrementalKeyedStateHandle;
import io.duraflow.state.KeyGroupRange;
import io.duraflow.state.KeyedStateHandle;
import io.duraflow.state.StreamStateHandle;
import io.duraflow.state.backend.IncompatibleStateException;
import io.duraflow.state.backend.InternalTimerService;
import io.duraflow.state.backend.KeyedBackendParameters;
import io.duraflow.state.backend.KeyedStateBackend;
import io.duraflow.state.backend.RestoreChecks;
import io.duraflow.state.backend.SnapshotType;
import io.duraflow.state.format.KeyedSnapshotFormat.StateMeta;
import io.duraflow.state.format.StateKind;
import io.duraflow.state.storage.CheckpointStreamFactory;
import io.duraflow.util.Murmur;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.RunnableFuture;
import java.util.function.IntFunction;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.Snapshot;
import org.rocksdb.WriteBatch;

/**
 * Keyed state in a local RocksDB database, behind a bounded {@link WriteBackCache} and without a
 * write-ahead log (durability comes from checkpoints). Task thread only, except the futures {@link
 * #snapshot} returns. Which snapshot each type takes: see
 * docs/design/state-backends.md#rocksdbkeyedstatebackend.
 */
final class RocksDBKeyedStateBackend<K> implements KeyedStateBackend<K> {
    /** A state of the database: how it is declared, its column families, and its user-facing object once declared. */
    private static final class StateInfo {
        final StateMeta meta;
        final String source;
        ColumnFamilyHandle entries;
        ColumnFamilyHandle raw;
        Object declared;
        /** The entries' column in the {@link StateStore} once declared. */
        int storeColumn = -1;

        StateInfo(StateMeta meta, String source) {
            this.meta = meta;
            this.source = source;
        }
    }

    private final String description;
    private final TypeSerializer<K> keySerializer;
    private final int maxParallelism;
    private final KeyGroupRange keyGroupRange;
    private final Path localDirectory;
    private final boolean incremental;
    private final RocksDBResources resources;
    private final String backendId = UUID.randomUUID().toString();
    private final RocksDBInstance db;
    private final StateStore store;
    private final ColumnFamilyHandle timerColumn;
    private final RocksDBTimerService<K> timers;
    private final ColumnFamilyHandle eventTimerColumn;
    private final RocksDBTimerService<K> eventTimers;
    private final Map<String, StateInfo> states = new TreeMap<>();
    private final ResourceGuard guard;
    /** RocksDB snapshots held by canonical snapshots not finished yet; guarded by itself. */
    private final Set<Snapshot> openSnapshots = new HashSet<>();
    /** Shared files of each native snapshot uploaded and not yet settled, by checkpoint id (written by async parts). */
    private final ConcurrentSkipListMap<Long, Map<String, StreamStateHandle>> uploads = new ConcurrentSkipListMap<>();
    /** SST files the next incremental checkpoint may refer to instead of uploading them. */
    private Map<String, StreamStateHandle> reusable;
    private long reusableCheckpointId = Long.MIN_VALUE;

    private final DataWriter keyWriter = new DataWriter(64);
    private final DataWriter timerKeyWriter = new DataWriter(64);
    private final DataWriter valueWriter = new DataWriter(256);
    private K currentKey;
    private int currentKeyGroup = -1;
    private boolean disposed;

    private RocksDBKeyedStateBackend(KeyedBackendParameters<K> parameters, boolean incremental,
            long cacheBytes, RocksDBResources resources, RocksDBRestore.Restored restored) throws IOException {
        this.description = parameters.operatorDescription();
        this.keySerializer = parameters.keySerializer();
        this.maxParallelism = parameters.maxParallelism();
        this.keyGroupRange = parameters.keyGroupRange();
        this.localDirectory = parameters.localDirectory();
        this.incremental = incremental;
        this.resources = resources;
        this.db = restored.db();
        this.store = new StateStore(description, db, cacheBytes);
        this.guard = new ResourceGuard(description);
        this.reusable = restored.reusable();
        for (BackendMetadata.State state : restored.states().values()) {
            StateInfo info = new StateInfo(state.meta(), "the restored checkpoint");
            info.entries = state.hasEntries() ? db.columnOrCreate(KeyLayout.entriesColumn(state.meta().name())) : null;
            info.raw = state.hasRaw() ? db.columnOrCreate(KeyLayout.rawColumn(state.meta().name())) : null;
            states.put(state.meta().name(), info);
        }
        this.timerColumn = db.columnOrCreate(KeyLayout.TIMERS_COLUMN);
        this.timers = loadTimers(timerColumn);
        this.eventTimerColumn = db.columnOrCreate(KeyLayout.EVENT_TIMERS_COLUMN);
        this.eventTimers = loadTimers(eventTimerColumn);
    }

    /** The timer service of one domain over its column, with the timers the database holds. */
    private RocksDBTimerService<K> loadTimers(ColumnFamilyHandle column) {
        RocksDBTimerService<K> service = new RocksDBTimerService<>(this, store, store.addColumn(column, false),
                keyGroupRange.start(), keyGroupRange.size());
        service.load();
        return service;
    }

    /**
     * A backend with the state of {@code parameters.restoreState()} in its key groups, and a write-back
     * cache of {@code cacheBytes} (0: none).
     */
    static <K> RocksDBKeyedStateBackend<K> create(KeyedBackendParameters<K> parameters, boolean incremental,
            RocksDBResources.Settings settings, long cacheBytes) throws IOException {
        if (parameters.maxParallelism() > 1 << (8 * KeyLayout.KEY_GROUP_BYTES)) {
            throw new IllegalArgumentException(parameters.operatorDescription() + ": the RocksDB backend supports at"
                    + " most " + (1 << 16) + " key groups, not " + parameters.maxParallelism());
        }
        Path local = parameters.localDirectory();
        LocalFiles.deleteTree(local);
        RocksDBResources resources = RocksDBResources.acquire(settings);
        try {
            RocksDBRestore.Restored restored = new RocksDBRestore(parameters.operatorDescription(),
                    parameters.keySerializer(), parameters.maxParallelism(), parameters.keyGroupRange(), resources)
                    .restore(parameters.restoreState(), local.resolve("db"), local);
            try {
                return new RocksDBKeyedStateBackend<>(parameters, incremental, cacheBytes, resources, restored);
            } catch (IOException | RuntimeException e) {
                restored.db().close();
                throw e;
            }
        } catch (IOException | RuntimeException e) {
            RocksDBResources.release(resources);
            LocalFiles.deleteTreeQuietly(local);
            throw e;
        }
    }

    // ---- keys -----------------------------------------------------------------------------

    @Override
    public TypeSerializer<K> keySerializer() {
        return keySerializer;
    }

    @Override
    public int maxParallelism() {
        return maxParallelism;
    }

    @Override
    public KeyGroupRange keyGroupRange() {
        return keyGroupRange;
    }

    @Override
    public void setCurrentKey(K key) {
        Objects.requireNonNull(key, "key");
        keyWriter.reset();
        keyWriter.writeByte(0);
        keyWriter.writeByte(0);
        keySerializer.write(key, keyWriter);
        byte[] bytes = keyWriter.buffer();
        int keyGroup = keyGroupOf(key, bytes, keyWriter.position());
        KeyLayout.writeKeyGroup(bytes, keyGroup);
        currentKeyGroup = keyGroup;
        currentKey = key;
    }

    /** The key group of a key serialized into {@code bytes[2, end)}, which must be one of this instance's. */
    private int keyGroupOf(K key, byte[] bytes, int end) {
        int offset = KeyLayout.KEY_GROUP_BYTES;
        return RestoreChecks.requireOwned(description, key,
                Murmur.keyGroup(bytes, offset, end - offset, maxParallelism), keyGroupRange);
    }

    @Override
    public K currentKey() {
        return currentKey;
    }

    @Override
    public int currentKeyGroup() {
        return currentKeyGroup;
    }

    void requireCurrentKey() {
        if (currentKey == null) {
            throw new IllegalStateException(description + ": keyed state used outside of a keyed record or timer"
                    + " (no current key)");
        }
    }

    /** {@code kg | key}: the current key's database key in {@code [0, keyLength())}. */
    byte[] keyBuffer() {
        return keyWriter.buffer();
    }

    int keyLength() {
        return keyWriter.position();
    }

    /** {@code kg | time | key}: a timer's database key. */
    byte[] timerKey(K key, long time) {
        int offset = KeyLayout.KEY_GROUP_BYTES + 8;
        timerKeyWriter.reset();
        for (int i = 0; i < offset; i++) {
            timerKeyWriter.writeByte(0);
        }
        keySerializer.write(key, timerKeyWriter);
        byte[] bytes = timerKeyWriter.toByteArray();
        int keyGroup = Murmur.keyGroup(bytes, offset, bytes.length - offset, maxParallelism);
        if (!keyGroupRange.contains(keyGroup)) {
            throw new IllegalArgumentException(description + ": key " + key + " is in key group " + keyGroup
                    + ", not in this instance's key groups " + keyGroupRange + "; timers belong to keys of this"
                    + " instance");
        }
        KeyLayout.writeKeyGroup(bytes, keyGroup);
        KeyLayout.writeTime(bytes, KeyLayout.KEY_GROUP_BYTES, time);
        return bytes;
    }

    String description() {
        return description;
    }

    // ---- reads and writes for the state objects (task thread) ---------------------------

    /** The database behind its write-back cache. */
    StateStore store() {
        return store;
    }

    /** The reused writer for values, reset. */
    DataWriter valueWriter() {
        valueWriter.reset();
        return valueWriter;
    }

    // ---- declaring state ------------------------------------------------------------------

    @Override
    public <T> ValueState<T> getState(ValueStateDescriptor<T> descriptor) {
        return declare(descriptor, CanonicalBlocks.Skip.of(descriptor.serializer()), null,
                column -> new RocksDBValueState<>(this, store, column, descriptor.serializer()));
    }

    @Override
    public <T> ListState<T> getListState(ListStateDescriptor<T> descriptor) {
        return declare(descriptor, CanonicalBlocks.Skip.of(descriptor.elementSerializer()), null,
                column -> new RocksDBListState<>(this, store, column, descriptor.elementSerializer()));
    }

    @Override
    public <MK, MV> MapState<MK, MV> getMapState(MapStateDescriptor<MK, MV> descriptor) {
        return declare(descriptor, CanonicalBlocks.Skip.of(descriptor.valueSerializer()),
                CanonicalBlocks.Skip.of(descriptor.keySerializer()),
                column -> new RocksDBMapState<>(this, store, column, descriptor.keySerializer(),
                        descriptor.valueSerializer()));
    }

    @SuppressWarnings("unchecked")
    private <R> R declare(StateDescriptor descriptor, CanonicalBlocks.Skip values, CanonicalBlocks.Skip mapKeys,
            IntFunction<R> wrap) {
        checkNotDisposed();
        StateMeta meta = new StateMeta(descriptor.name(), StateKind.of(descriptor), descriptor.description());
        StateInfo info = states.get(meta.name());
        if (info != null && info.declared != null) {
            if (!info.meta.equals(meta)) {
                throw new IncompatibleStateException(description + ": state '" + meta.name() + "' is declared as "
                        + meta.description() + " but was declared as " + info.meta.description()
                        + " before; give one of them another name");
            }
            return (R) info.declared;
        }
        if (info != null && !info.meta.equals(meta)) {
            throw new IncompatibleStateException(description + ": state '" + meta.name() + "' was restored as "
                    + info.meta.description() + " (from " + info.source + ") but is now declared as "
                    + meta.description() + "; declare it as before, or give the new state another name");
        }
        try {
            if (info == null) {
                info = new StateInfo(meta, "this run");
                states.put(meta.name(), info);
            }
            if (info.entries == null) {
                info.entries = db.columnOrCreate(KeyLayout.entriesColumn(meta.name()));
            }
            if (info.raw != null) {
                convertRaw(info, values, mapKeys);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        info.storeColumn = store.addColumn(info.entries, true);
        R wrapped = wrap.apply(info.storeColumn);
        info.declared = wrapped;
        return wrapped;
    }

    /** Turns the raw canonical blocks of a newly declared state into entries, then drops them. */
    private void convertRaw(StateInfo info, CanonicalBlocks.Skip values, CanonicalBlocks.Skip mapKeys)
            throws IOException {
        CanonicalBlocks blocks = new CanonicalBlocks(keySerializer);
        try (WriteBatch batch = new WriteBatch(); RocksIterator iterator = db.db().newIterator(info.raw, db.readOptions)) {
            for (iterator.seekToFirst(); iterator.isValid(); iterator.next()) {
                int keyGroup = KeyLayout.readKeyGroup(iterator.key());
                try {
                    blocks.insertBlock(info.meta.kind(), keyGroup, iterator.value(), values, mapKeys, info.entries,
                            batch);
                } catch (CorruptDataException e) {
                    throw new IncompatibleStateException(description + ": state '" + info.meta.name()
                            + "' in key group " + keyGroup + " of " + info.source + " cannot be read as "
                            + info.meta.description() + ": " + e.getMessage()
                            + "; its serializer changed its format without changing its description");
                }
                if (batch.getDataSize() > 4 << 20) {
                    db.write(batch);
                }
            }
            db.write(batch);
        } catch (RocksDBException e) {
            throw new IOException(description + ": converting the restored state '" + info.meta.name() + "' failed: "
                    + e.getMessage(), e);
        }
        info.raw = null;
        db.drop(KeyLayout.rawColumn(info.meta.name()));
    }

    @Override
    public InternalTimerService<K> timerService() {
        return timers;
    }

    @Override
    public InternalTimerService<K> eventTimerService() {
        return eventTimers;
    }

    @Override
    public List<String> stateNames() {
        return List.copyOf(states.keySet());
    }

    // ---- snapshots ------------------------------------------------------------------------

    @Override
    public RunnableFuture<List<KeyedStateHandle>> snapshot(long checkpointId, long timestamp,
            CheckpointStreamFactory streamFactory, SnapshotType type) throws IOException {
        checkNotDisposed();
        Objects.requireNonNull(streamFactory, "streamFactory");
        if (states.isEmpty() && timers.size() == 0 && eventTimers.size() == 0) {
            return SnapshotFuture.empty();
        }
        // Both kinds read the database (a native checkpoint of its files, a RocksDB snapshot): the
        // cache's dirty values go into it first, so the snapshot holds every write before it.
        store.flush();
        if (incremental && type != SnapshotType.SAVEPOINT) {
            return nativeSnapshot(checkpointId, streamFactory, type);
        }
        return canonicalSnapshot(streamFactory);
    }

    private RunnableFuture<List<KeyedStateHandle>> nativeSnapshot(long checkpointId, CheckpointStreamFactory streams,
            SnapshotType type) throws IOException {
        Path directory = localDirectory.resolve("chk-" + checkpointId);
        LocalFiles.deleteTree(directory);
        NativeSnapshot.checkpoint(db, directory);
        if (!type.mayBeIncremental()) {
            reusable = Map.of();
            reusableCheckpointId = Long.MIN_VALUE;
        }
        Map<String, StreamStateHandle> reuse = type.mayBeIncremental() ? Map.copyOf(reusable) : Map.of();
        BackendMetadata metadata = metadata();
        return SnapshotFuture.of(() -> {
            IncrementalKeyedStateHandle handle = NativeSnapshot.upload(backendId, checkpointId, keyGroupRange,
                    directory, reuse, metadata, streams, resources.transfers(), guard::isClosed);
            Map<String, StreamStateHandle> shared = new HashMap<>();
            for (IncrementalKeyedStateHandle.SharedFile file : handle.sharedFiles()) {
                shared.put(file.name(), file.handle());
            }
            uploads.put(checkpointId, shared);
            return List.of(handle);
        }, () -> LocalFiles.deleteTreeQuietly(directory), streams);
    }

    private BackendMetadata metadata() {
        List<BackendMetadata.State> list = new ArrayList<>();
        for (StateInfo info : states.values()) {
            int columns = (info.entries != null ? BackendMetadata.ENTRIES : 0) | (info.raw != null ? BackendMetadata.RAW : 0);
            list.add(new BackendMetadata.State(info.meta, columns));
        }
        return new BackendMetadata(keySerializer.description(), maxParallelism, keyGroupRange, list);
    }

    private RunnableFuture<List<KeyedStateHandle>> canonicalSnapshot(CheckpointStreamFactory streams) {
        List<CanonicalSnapshot.Part> parts = new ArrayList<>();
        for (StateInfo info : states.values()) {
            parts.add(new CanonicalSnapshot.Part(info.meta, info.entries, info.raw));
        }
        Snapshot snapshot = db.db().getSnapshot();
        synchronized (openSnapshots) {
            openSnapshots.add(snapshot);
        }
        return SnapshotFuture.of(() -> {
            guard.acquire();
            try {
                return List.of(CanonicalSnapshot.write(db, snapshot, keySerializer, maxParallelism, keyGroupRange,
                        parts, timerColumn, eventTimerColumn, streams, guard::isClosed));
            } finally {
                guard.release();
            }
        }, () -> releaseSnapshot(snapshot), streams);
    }

    private void releaseSnapshot(Snapshot snapshot) {
        synchronized (openSnapshots) {
            if (openSnapshots.remove(snapshot)) {
                db.db().releaseSnapshot(snapshot);
            }
        }
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        Map.Entry<Long, Map<String, StreamStateHandle>> newest = uploads.floorEntry(checkpointId);
        if (newest != null && newest.getKey() > reusableCheckpointId) {
            reusable = newest.getValue();
            reusableCheckpointId = newest.getKey();
        }
        uploads.headMap(checkpointId, true).clear();
    }

    @Override
    public void notifyCheckpointAborted(long checkpointId) {
        uploads.remove(checkpointId);
    }

    /** The files the next incremental checkpoint may refer to (tests). */
    Set<String> reusableFiles() {
        return Set.copyOf(reusable.keySet());
    }

    @Override
    public void dispose() {
        if (disposed) {
            return;
        }
        disposed = true;
        guard.closeAndAwait();
        store.close();
        synchronized (openSnapshots) {
            for (Snapshot snapshot : openSnapshots) {
                db.db().releaseSnapshot(snapshot);
            }
            openSnapshots.clear();
            db.close();
        }
        RocksDBResources.release(resources);
        LocalFiles.deleteTreeQuietly(localDirectory);
    }

    private void checkNotDisposed() {
        if (disposed) {
            throw new IllegalStateException(description + ": the keyed state backend was disposed");
        }
    }
}
