package io.duraflow.state.backend;

import io.duraflow.api.state.KeyedStateStore;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.state.KeyGroupRange;
import io.duraflow.state.KeyedStateHandle;
import io.duraflow.state.storage.CheckpointStreamFactory;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.RunnableFuture;

/**
 * The keyed state of one parallel instance of a keyed operator: the states it declares (through
 * {@link KeyedStateStore}, scoped to the {@linkplain #setCurrentKey current key}) and its
 * processing-time timers, over the key groups it owns. Every method except the returned
 * asynchronous snapshot runs on the task thread.
 *
 * <h2>Declaring state</h2>
 * A state is found by its descriptor's name. Declaring a name again with the same kind and
 * {@link io.duraflow.api.state.StateDescriptor#description() description} returns the same state;
 * another kind or description, compared with this run's declaration or with the restored
 * checkpoint, is an {@link IncompatibleStateException} naming the state. State that was restored
 * but is not declared (yet) is kept and written into every later snapshot unchanged.
 *
 * <h2>Snapshots</h2>
 * {@link #snapshot} is the synchronous part, on the task thread between two records: it must be
 * short (it freezes what the snapshot will contain, it does not write it). The {@link RunnableFuture}
 * it returns is the asynchronous part: run it on another thread; it writes through the stream
 * factory and yields the handles to acknowledge the checkpoint with (empty when there is no state).
 * Writes to the backend after {@code snapshot} returned never change what the snapshot contains.
 * The asynchronous part uses the key and state serializers on its own thread while the task uses
 * them too: serializers must be stateless (every {@code Types} serializer is).
 * Cancelling the future (with interruption) stops the write and deletes what it wrote; a future
 * that completed owns its handles, and the caller discards them if the checkpoint is not
 * acknowledged.
 *
 * <h2>Checkpoint notifications</h2>
 * {@link #notifyCheckpointComplete} and {@link #notifyCheckpointAborted} tell the backend which
 * snapshots the job kept, which an incremental backend needs to know which files later
 * checkpoints may refer to. Notifications can be lost: a later completion implies the earlier ones.
 *
 * @param <K> the key type
 */
public interface KeyedStateBackend<K> extends KeyedStateStore, AutoCloseable {
    TypeSerializer<K> keySerializer();

    /** The number of key groups of the job, fixed for its lifetime. */
    int maxParallelism();

    /** The key groups this instance owns. */
    KeyGroupRange keyGroupRange();

    /**
     * Makes {@code key} the key that state reads and writes and timer registrations apply to.
     *
     * @throws IllegalArgumentException if the key's group is not in {@link #keyGroupRange()}: the
     *     records were not partitioned by this key
     */
    void setCurrentKey(K key);

    /**
     * A hint that the next records processed have these keys, in this order (a key may be null):
     * the backend may load their state into the CPU caches together, so the memory latency of a
     * batch of lookups is paid about once instead of once per record. Changes no state and never
     * throws for a key it cannot use; {@link #setCurrentKey} still checks every key. The default
     * does nothing.
     */
    default void prefetch(Object[] keys, int count) {
    }

    /** The current key; {@code null} before the first {@link #setCurrentKey}. */
    K currentKey();

    /** The current key's key group. */
    int currentKeyGroup();

    /** The timers of this operator, as state of this backend. */
    InternalTimerService<K> timerService();

    /** Names of the states declared or restored, sorted. */
    List<String> stateNames();

    /** The synchronous part of a snapshot; see the class comment. */
    RunnableFuture<List<KeyedStateHandle>> snapshot(long checkpointId, long timestamp,
            CheckpointStreamFactory streamFactory, SnapshotType type) throws IOException;

    void notifyCheckpointComplete(long checkpointId);

    void notifyCheckpointAborted(long checkpointId);

    /** Releases memory and local files; the backend is unusable afterwards. Idempotent. */
    void dispose();

    @Override
    default void close() {
        dispose();
    }
}
