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
 * The keyed state of one parallel instance of a keyed operator: its declared states and timers (of
 * both time domains) over the key groups it owns. Every method except the returned asynchronous
 * snapshot runs on the task thread. The contract (declaring state, snapshots, checkpoint notifications): see
 * docs/design/state-backends.md#keyedstatebackend.
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
     * throws for a key it cannot use; {@link #setCurrentKey} still checks every key. Reads {@code
     * keys} during the call only (the caller keeps them, and may hand the same key objects to
     * {@link #setCurrentKey}). The default does nothing.
     */
    default void prefetch(Object[] keys, int count) {
    }

    /** The current key; {@code null} before the first {@link #setCurrentKey}. */
    K currentKey();

    /** The current key's key group. */
    int currentKeyGroup();

    /** The processing-time timers of this operator, as state of this backend. */
    InternalTimerService<K> timerService();

    /**
     * The event-time timers of this operator, as state of this backend: a service of its own,
     * independent of {@link #timerService()} (a key and time registered in both are two timers),
     * snapshotted, restored and redistributed by key group alike.
     */
    InternalTimerService<K> eventTimerService();

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
