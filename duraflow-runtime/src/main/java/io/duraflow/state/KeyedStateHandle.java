package io.duraflow.state;

import java.util.List;

/**
 * Keyed state of one parallel instance for a range of key groups. Implementations: {@link
 * KeyGroupsStateHandle} (a full snapshot with an offset per key group, the canonical format every
 * backend restores) and {@link IncrementalKeyedStateHandle} (a RocksDB database checkpoint whose
 * SST files several checkpoints share).
 */
public interface KeyedStateHandle {
    KeyGroupRange keyGroupRange();

    /**
     * The part of this state in {@code range}, or {@code null} when none is: what a restored
     * instance that owns {@code range} reads.
     */
    KeyedStateHandle intersection(KeyGroupRange range);

    /** Bytes this handle refers to, for sizes shown to users. */
    long stateSize();

    /**
     * Bytes this checkpoint wrote for the handle: {@link #stateSize()} for a full snapshot, less
     * for an incremental one whose files earlier checkpoints uploaded.
     */
    default long checkpointedSize() {
        return stateSize();
    }

    /** Every stream of bytes this handle refers to: what a registry counts and a restore reads. */
    List<StreamStateHandle> streams();
}
