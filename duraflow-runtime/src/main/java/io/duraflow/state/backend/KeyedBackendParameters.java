package io.duraflow.state.backend;

import io.duraflow.api.types.TypeSerializer;
import io.duraflow.state.KeyGroupRange;
import io.duraflow.state.KeyedStateHandle;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * What a keyed backend is made from.
 *
 * @param operatorDescription names the operator instance in errors, e.g. {@code "sum (uid sum-1) 2/4"}
 * @param keySerializer writes keys into snapshots and hashes them into key groups
 * @param maxParallelism the job's number of key groups
 * @param keyGroupRange the key groups this instance owns
 * @param restoreState handles to restore, as the redistribution assigned them; any handle may
 *     cover more key groups than owned (it is clipped); empty for a fresh start
 * @param localDirectory a directory private to this instance for backends that keep files locally
 *     (RocksDB); the heap backend does not use it
 */
public record KeyedBackendParameters<K>(String operatorDescription, TypeSerializer<K> keySerializer,
        int maxParallelism, KeyGroupRange keyGroupRange, List<KeyedStateHandle> restoreState, Path localDirectory) {
    public KeyedBackendParameters {
        Objects.requireNonNull(operatorDescription, "operatorDescription");
        Objects.requireNonNull(keySerializer, "keySerializer");
        Objects.requireNonNull(keyGroupRange, "keyGroupRange");
        restoreState = List.copyOf(restoreState);
        Objects.requireNonNull(localDirectory, "localDirectory");
        if (maxParallelism < 1) {
            throw new IllegalArgumentException("max parallelism " + maxParallelism + " of " + operatorDescription);
        }
        if (!keyGroupRange.isEmpty() && keyGroupRange.end() >= maxParallelism) {
            throw new IllegalArgumentException("key groups " + keyGroupRange + " of " + operatorDescription
                    + " outside the " + maxParallelism + " key groups of the job");
        }
    }
}
