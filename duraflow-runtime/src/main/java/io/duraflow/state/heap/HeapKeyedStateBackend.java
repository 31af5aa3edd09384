package io.duraflow.state.heap;

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
import io.duraflow.api.types.Types;
import io.duraflow.state.KeyGroupRange;
import io.duraflow.state.KeyGroupsStateHandle;
import io.duraflow.state.KeyedStateHandle;
import io.duraflow.state.backend.IncompatibleStateException;
import io.duraflow.state.backend.InternalTimerService;
import io.duraflow.state.backend.KeyedBackendParameters;
import io.duraflow.state.backend.KeyedStateBackend;
import io.duraflow.state.backend.RestoreChecks;
import io.duraflow.state.backend.SnapshotType;
import io.duraflow.state.format.KeyedSnapshotFormat;
import io.duraflow.state.format.KeyedSnapshotFormat.Block;
import io.duraflow.state.format.KeyedSnapshotFormat.Header;
import io.duraflow.state.format.KeyedSnapshotFormat.StateMeta;
import io.duraflow.state.format.StateKind;
import io.duraflow.state.storage.CheckpointStreamFactory;
import io.duraflow.state.storage.CorruptStateException;
import io.duraflow.util.Murmur;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RunnableFuture;
import java.util.function.Function;

/**
 * Keyed state as objects on the heap: per state, one map per key group ({@link StateTable}),
 * copied on write while a snapshot holds it, so the synchronous part of a snapshot freezes the
 * maps in time proportional to states x key groups, and the asynchronous part writes them in the
 * canonical {@link KeyedSnapshotFormat} off the task thread ({@link HeapSnapshotWriter}).
 *
 * <p>Restored state stays as raw blocks until its state is declared (only then are its
 * serializers known); undeclared restored state is written into every later snapshot unchanged,
 * so a job that does not touch a state before its next checkpoint does not lose it.
 *
 * <p>Rule for users: a value read from or handed to a state must not be mutated in place; replace
 * it through {@code update()}/{@code put()}. Task thread only, except the snapshot's future.
 */
final class HeapKeyedStateBackend<K> implements KeyedStateBackend<K> {
    /** A state restored from a checkpoint and not declared yet: its raw blocks per key group. */
    private record RestoredState(StateMeta meta, byte[][] blocks, String source) {
    }

    private final String operatorDescription;
    private final TypeSerializer<K> keySerializer;
    private final int maxParallelism;
    private final KeyGroupRange keyGroupRange;
    private final Map<String, RegisteredState<K, ?>> registered = new TreeMap<>();
    /** The user-facing state objects by name, so a second declaration returns the same one. */
    private final Map<String, Object> stateObjects = new HashMap<>();
    private final Map<String, RestoredState> restored = new TreeMap<>();
    private final HeapTimerService<K> timers;
    private final HeapTimerService<K> eventTimers;
    private final DataWriter keyBytes = new DataWriter(64);
    /** The keys are written by {@code Types.LONG}: their key group is computed without writing them. */
    private final boolean longKeys;
    private K currentKey;
    /** The current key unboxed, when keys are Longs. */
    private long currentLongKey;
    private int currentKeyGroup = -1;
    /** The tables of the declared states: what {@link #prefetch} loads. */
    private final List<StateTable<K, ?>> tables = new ArrayList<>();
    /** The keys of the last {@link #prefetch} and their key groups (-1: not computed), in order. */
    private final Object[] prefetchedKeys = new Object[MAX_PREFETCH];
    private final int[] prefetchedKeyGroups = new int[MAX_PREFETCH];
    private int prefetchedCount;
    /** The prefetched key {@link #setCurrentKey} expects next. */
    private int prefetchCursor;
    /**
     * The owned keys of the last prefetch and their groups, for {@link StateTable#prefetch}: Long
     * keys themselves, or other keys' hash codes.
     */
    private final long[] touchKeys = new long[MAX_PREFETCH];
    private final int[] touchHashes = new int[MAX_PREFETCH];
    private final int[] touchKeyGroups = new int[MAX_PREFETCH];
    private final Object[] touchValues = new Object[MAX_PREFETCH];
    /** What the prefetch loads add up to; kept so that they are not optimized away. */
    private final long[] prefetchSink = new long[1];
    private boolean disposed;

    /** At most this many keys of one {@link #prefetch} are used; the rest are ignored. */
    static final int MAX_PREFETCH = 16;

    private HeapKeyedStateBackend(KeyedBackendParameters<K> parameters) {
        this.operatorDescription = parameters.operatorDescription();
        this.keySerializer = parameters.keySerializer();
        this.maxParallelism = parameters.maxParallelism();
        this.keyGroupRange = parameters.keyGroupRange();
        this.longKeys = keySerializer == Types.LONG;
        this.timers = new HeapTimerService<>(this, keyGroupRange.start(), keyGroupRange.size());
        this.eventTimers = new HeapTimerService<>(this, keyGroupRange.start(), keyGroupRange.size());
    }

    /** A backend with the state of {@code parameters.restoreState()} in its key groups. */
    static <K> HeapKeyedStateBackend<K> restore(KeyedBackendParameters<K> parameters) throws IOException {
        HeapKeyedStateBackend<K> backend = new HeapKeyedStateBackend<>(parameters);
        for (KeyedStateHandle handle : parameters.restoreState()) {
            backend.restoreHandle(handle);
        }
        return backend;
    }

    private void restoreHandle(KeyedStateHandle handle) throws IOException {
        if (!(handle instanceof KeyGroupsStateHandle keyGroups)) {
            throw new IOException(operatorDescription + ": the heap state backend cannot restore "
                    + handle.getClass().getSimpleName() + " (written by another backend's own format); restore"
                    + " from a savepoint or with that backend");
        }
        if (keyGroups.keyGroupRange().intersection(keyGroupRange).isEmpty()) {
            return;
        }
        KeyedSnapshotFormat.read(keyGroups, keyGroupRange, new KeyedSnapshotFormat.Visitor() {
            private final Map<Integer, StateMeta> byId = new HashMap<>();

            @Override
            public void header(Header header, String source) throws IOException {
                checkHeader(header, source);
                for (int i = 0; i < header.states().size(); i++) {
                    StateMeta meta = header.states().get(i);
                    byId.put(KeyedSnapshotFormat.stateId(i), meta);
                    RestoredState earlier = restored.get(meta.name());
                    if (earlier == null) {
                        restored.put(meta.name(), new RestoredState(meta, new byte[keyGroupRange.size()][], source));
                    } else if (!earlier.meta().equals(meta)) {
                        throw new IncompatibleStateException(operatorDescription + ": state '" + meta.name()
                                + "' is " + meta.kind().name().toLowerCase(java.util.Locale.ROOT) + " "
                                + meta.description() + " in " + source + " but " + earlier.meta().description()
                                + " in " + earlier.source() + "; the restored checkpoint mixes two jobs");
                    }
                }
            }

            @Override
            public void keyGroup(int keyGroup, List<Block> blocks, String source) throws IOException {
                for (Block block : blocks) {
                    HeapTimerService<K> domain = switch (block.stateId()) {
                        case KeyedSnapshotFormat.PROCESSING_TIMERS_ID -> timers;
                        case KeyedSnapshotFormat.EVENT_TIMERS_ID -> eventTimers;
                        default -> null;
                    };
                    if (domain != null) {
                        try {
                            domain.restoreBlock(keyGroup, block.bytes(), keySerializer);
                        } catch (CorruptDataException e) {
                            throw new CorruptStateException(source + ": " + (domain == timers ? "processing" : "event")
                                    + "-time timers of key group " + keyGroup + " cannot be read with key serializer "
                                    + keySerializer.description() + ": " + e.getMessage(), e);
                        }
                        continue;
                    }
                    StateMeta meta = byId.get(block.stateId());
                    if (meta == null) {
                        throw new CorruptStateException(source + ": key group " + keyGroup + " has a block of state"
                                + " id " + block.stateId() + ", which its header does not list");
                    }
                    byte[][] perGroup = restored.get(meta.name()).blocks();
                    if (perGroup[keyGroup - keyGroupRange.start()] != null) {
                        throw new IOException(operatorDescription + ": key group " + keyGroup + " of state '"
                                + meta.name() + "' is restored twice (again from " + source + "); the restored"
                                + " handles overlap");
                    }
                    perGroup[keyGroup - keyGroupRange.start()] = block.bytes();
                }
            }
        });
    }

    private void checkHeader(Header header, String source) {
        RestoreChecks.checkRestoredKeys(operatorDescription, keySerializer, maxParallelism,
                header.keySerializerDescription(), header.maxParallelism(), source);
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

    /**
     * The key group comes from the last {@link #prefetch} when {@code key} is the very object
     * prefetched next (the key selector returned the record's own key object both times), else it
     * is computed; either way the same pure function of the key.
     */
    @Override
    public void setCurrentKey(K key) {
        Objects.requireNonNull(key, "key");
        int cursor = prefetchCursor;
        int keyGroup = -1;
        if (cursor < prefetchedCount && prefetchedKeys[cursor] == key) {
            prefetchCursor = cursor + 1;
            keyGroup = prefetchedKeyGroups[cursor];
        }
        currentKeyGroup = keyGroup >= 0 ? keyGroup : keyGroupOf(key);
        if (longKeys) {
            currentLongKey = (Long) key;
        }
        currentKey = key;
    }

    /**
     * Computes each owned key's group once (for {@link #setCurrentKey}) and loads the keys' entries
     * of every state table one after another (group prefetching: the cache misses of the batch
     * overlap, where one lookup per record pays each miss in full).
     */
    @Override
    public void prefetch(Object[] keys, int count) {
        int n = Math.min(count, MAX_PREFETCH);
        int owned = 0;
        for (int i = 0; i < n; i++) {
            Object key = keys[i];
            int keyGroup = -1;
            if (key != null) {
                int group = longKeys ? (key instanceof Long value ? Murmur.keyGroupOfLong(value, maxParallelism) : -1)
                        : prefetchKeyGroup(key);
                if (group >= 0 && keyGroupRange.contains(group)) {
                    keyGroup = group;
                    if (longKeys) {
                        touchKeys[owned] = (Long) key;
                    } else {
                        touchHashes[owned] = key.hashCode();
                    }
                    touchKeyGroups[owned++] = group;
                }
            }
            prefetchedKeys[i] = key;
            prefetchedKeyGroups[i] = keyGroup;
        }
        prefetchedCount = n;
        prefetchCursor = 0;
        for (int t = 0; t < tables.size(); t++) {
            StateTable<K, ?> table = tables.get(t);
            prefetchSink[0] += longKeys
                    ? table.prefetch(touchKeys, touchKeyGroups, owned, touchValues, prefetchSink)
                    : table.prefetchHashed(touchHashes, touchKeyGroups, owned, touchValues, prefetchSink);
        }
    }

    /**
     * A key's group for {@link #prefetch}, or -1 if the serializer fails on it: that record meets
     * the failure again in {@link #setCurrentKey}, in order.
     */
    @SuppressWarnings("unchecked")
    private int prefetchKeyGroup(Object key) {
        try {
            return serializedKeyGroup((K) key);
        } catch (RuntimeException e) {
            return -1;
        }
    }

    /** The key group of a key that is not a Long: from its serialized bytes, as every engine part computes it. */
    private int serializedKeyGroup(K key) {
        keyBytes.reset();
        keySerializer.write(key, keyBytes);
        return Murmur.keyGroup(keyBytes.buffer(), 0, keyBytes.position(), maxParallelism);
    }

    @Override
    public K currentKey() {
        return currentKey;
    }

    /** The current key of a backend whose keys are Longs, unboxed; meaningless otherwise. */
    long currentLongKey() {
        return currentLongKey;
    }

    @Override
    public int currentKeyGroup() {
        return currentKeyGroup;
    }

    K requireCurrentKey() {
        if (currentKey == null) {
            throw new IllegalStateException(operatorDescription + ": keyed state used outside of a keyed record or"
                    + " timer (no current key)");
        }
        return currentKey;
    }

    /** The key group of {@code key}, which must be one of this instance's. */
    int keyGroupOf(K key) {
        if (key == currentKey && currentKeyGroup >= 0) {
            return currentKeyGroup;
        }
        int keyGroup = longKeys ? Murmur.keyGroupOfLong((Long) key, maxParallelism) : serializedKeyGroup(key);
        return RestoreChecks.requireOwned(operatorDescription, key, keyGroup, keyGroupRange);
    }

    // ---- declaring state ------------------------------------------------------------------

    @Override
    public <T> ValueState<T> getState(ValueStateDescriptor<T> descriptor) {
        return declare(descriptor, StateCodec.value(descriptor.serializer()),
                table -> new HeapValueState<>(this, table));
    }

    @Override
    public <T> ListState<T> getListState(ListStateDescriptor<T> descriptor) {
        return declare(descriptor, StateCodec.list(descriptor.elementSerializer()),
                table -> new HeapListState<>(this, table));
    }

    @Override
    public <MK, MV> MapState<MK, MV> getMapState(MapStateDescriptor<MK, MV> descriptor) {
        return declare(descriptor, StateCodec.map(descriptor.keySerializer(), descriptor.valueSerializer()),
                table -> new HeapMapState<>(this, table));
    }

    @SuppressWarnings("unchecked")
    private <S, R> R declare(StateDescriptor descriptor, StateCodec<S> codec, Function<StateTable<K, S>, R> wrap) {
        checkNotDisposed();
        StateMeta meta = new StateMeta(descriptor.name(), StateKind.of(descriptor), descriptor.description());
        RegisteredState<K, ?> existing = registered.get(meta.name());
        if (existing != null) {
            if (!existing.meta.equals(meta)) {
                throw new IncompatibleStateException(operatorDescription + ": state '" + meta.name()
                        + "' is declared as " + meta.description() + " but was declared as "
                        + existing.meta.description() + " before; give one of them another name");
            }
            return (R) stateObjects.get(meta.name());
        }
        RestoredState restoredState = restored.get(meta.name());
        if (restoredState != null && !restoredState.meta().equals(meta)) {
            throw new IncompatibleStateException(operatorDescription + ": state '" + meta.name() + "' was restored as "
                    + restoredState.meta().description() + " (from " + restoredState.source()
                    + ") but is now declared as " + meta.description() + "; declare it as before, or give the new"
                    + " state another name");
        }
        StateTable<K, S> table = new StateTable<>(keyGroupRange.start(), keyGroupRange.size(), codec::copy,
                longKeys);
        RegisteredState<K, S> state = new RegisteredState<>(meta, table, codec);
        if (restoredState != null) {
            fill(state, restoredState);
            restored.remove(meta.name());
        }
        registered.put(meta.name(), state);
        tables.add(table);
        R wrapped = wrap.apply(table);
        stateObjects.put(meta.name(), wrapped);
        return wrapped;
    }

    private void fill(RegisteredState<K, ?> state, RestoredState restoredState) {
        for (int i = 0; i < restoredState.blocks().length; i++) {
            byte[] block = restoredState.blocks()[i];
            if (block == null) {
                continue;
            }
            try {
                state.restoreBlock(keyGroupRange.start() + i, block, keySerializer);
            } catch (CorruptDataException e) {
                throw new IncompatibleStateException(operatorDescription + ": state '" + state.meta.name()
                        + "' in key group " + (keyGroupRange.start() + i) + " of " + restoredState.source()
                        + " cannot be read as " + state.meta.description() + ": " + e.getMessage()
                        + "; its serializer changed its format without changing its description");
            }
        }
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
        TreeSet<String> names = new TreeSet<>(registered.keySet());
        names.addAll(restored.keySet());
        return List.copyOf(names);
    }

    /** Entries of a declared state over all key groups (for tests and metrics). */
    long size(String stateName) {
        RegisteredState<K, ?> state = registered.get(stateName);
        return state == null ? 0 : state.table.size();
    }

    // ---- snapshots ------------------------------------------------------------------------

    @Override
    public RunnableFuture<List<KeyedStateHandle>> snapshot(long checkpointId, long timestamp,
            CheckpointStreamFactory streamFactory, SnapshotType type) {
        checkNotDisposed();
        Objects.requireNonNull(streamFactory, "streamFactory");
        List<HeapSnapshotWriter.Part<K>> parts = new ArrayList<>();
        for (RegisteredState<K, ?> state : registered.values()) {
            parts.add(HeapSnapshotWriter.Part.of(state));
        }
        for (RestoredState state : restored.values()) {
            parts.add(new HeapSnapshotWriter.RawPart<>(state.meta(), keyGroupRange.start(), state.blocks()));
        }
        if (parts.isEmpty() && timers.size() == 0 && eventTimers.size() == 0) {
            FutureTask<List<KeyedStateHandle>> nothing = new FutureTask<>(List::of);
            nothing.run();
            return nothing;
        }
        HeapSnapshotWriter<K> writer = new HeapSnapshotWriter<>(keySerializer, maxParallelism, keyGroupRange, parts,
                timers.freeze(), eventTimers.freeze(), streamFactory);
        return new FutureTask<>(writer::write);
    }

    /** Nothing to do: every heap snapshot is full and refers to no earlier one. */
    @Override
    public void notifyCheckpointComplete(long checkpointId) {
    }

    /** Nothing to do: an aborted snapshot's files are discarded by whoever holds its handles. */
    @Override
    public void notifyCheckpointAborted(long checkpointId) {
    }

    @Override
    public void dispose() {
        disposed = true;
        registered.clear();
        tables.clear();
        restored.clear();
        stateObjects.clear();
    }

    private void checkNotDisposed() {
        if (disposed) {
            throw new IllegalStateException(operatorDescription + ": the keyed state backend was disposed");
        }
    }
}
