package io.duraflow.state;

/**
 * Keyed state of one parallel instance for a range of key groups. Implementations: {@link
 * KeyGroupsStateHandle} (a full snapshot with an offset per key group); the RocksDB backend adds
 * an incremental one (files shared by several checkpoints).
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
}
