package io.duraflow.state.backend;

import io.duraflow.api.types.TypeSerializer;
import io.duraflow.fs.FsPath;
import io.duraflow.fs.LocalFileSystem;
import io.duraflow.state.CheckpointDirectories;
import io.duraflow.state.KeyGroupRange;
import io.duraflow.state.KeyedStateHandle;
import io.duraflow.state.storage.CheckpointStreamFactory;
import io.duraflow.state.storage.FsCheckpointStorage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RunnableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * What every {@link KeyedStateBackend} must do, whatever keeps its state: a backend's test extends
 * this class and names its {@link StateBackend} ({@code HeapKeyedStateBackendTest}, {@code
 * RocksDBKeyedStateBackendTest}), and so runs every part of the contract:
 * <ul>
 * <li>{@link KeyedStateTypesContract}: value, list and map state, declarations, key groups not
 * owned, and a seeded random model test;
 * <li>{@link KeyedStatePrefetchContract}: prefetch is a hint only;
 * <li>{@link KeyedStateSnapshotContract}: snapshots and restore;
 * <li>{@link KeyedStateRescalingContract}: key groups moving to another parallelism;
 * <li>{@link KeyedStateTimersContract}: processing-time and event-time timers.
 * </ul>
 * The parts are interfaces whose {@code @Test} methods are default methods, so that one class per
 * backend runs them all (Java has no multiple inheritance of classes); this class is their
 * fixture ({@link KeyedStateBackendFixture}) and holds what each test's backends share.
 * Snapshots are written through real checkpoint storage in a temporary directory, their
 * asynchronous part on a thread of their own, as a task does it.
 */
public abstract class KeyedStateBackendContractTest implements KeyedStateTypesContract, KeyedStatePrefetchContract,
        KeyedStateSnapshotContract, KeyedStateRescalingContract, KeyedStateTimersContract {
    @TempDir
    protected Path tempDir;

    private FsCheckpointStorage storage;
    private ExecutorService asyncThread;
    private final List<KeyedStateBackend<?>> created = new ArrayList<>();
    private long nextCheckpointId = 1;

    /** The backend under test. */
    protected abstract StateBackend stateBackend();

    @Override
    public int inlineThresholdBytes() {
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

    @Override
    public Path tempDir() {
        return tempDir;
    }

    @Override
    public <K> KeyedStateBackend<K> backend(TypeSerializer<K> keySerializer, KeyGroupRange range,
            List<KeyedStateHandle> restore) throws IOException {
        return backend(stateBackend(), keySerializer, range, restore);
    }

    @Override
    public <K> KeyedStateBackend<K> backend(StateBackend kind, TypeSerializer<K> keySerializer, KeyGroupRange range,
            List<KeyedStateHandle> restore) throws IOException {
        Path local = tempDir.resolve("local-" + created.size());
        KeyedStateBackend<K> backend = kind.createKeyedStateBackend(new KeyedBackendParameters<>(
                "test-op " + created.size(), keySerializer, MAX_PARALLELISM, range, restore, local));
        created.add(backend);
        return backend;
    }

    @Override
    public List<KeyedStateHandle> snapshot(KeyedStateBackend<?> backend, SnapshotType type, boolean notify)
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

    @Override
    public long lastCheckpointId() {
        return nextCheckpointId - 1;
    }

    @Override
    public CheckpointStreamFactory streamFactory(long checkpointId) {
        return storage.streamFactory(checkpointId);
    }

    @Override
    public ExecutorService asyncThread() {
        return asyncThread;
    }
}
