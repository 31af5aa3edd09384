package io.duraflow.state.backend;

import io.duraflow.api.types.TypeSerializer;
import io.duraflow.state.KeyGroupRange;

/**
 * The checks every keyed backend makes the same way, with the same messages: that restored state
 * was written for the operator's keys and the job's number of key groups, and that a key belongs
 * to the instance's key groups.
 */
public final class RestoreChecks {
    private RestoreChecks() {
    }

    /**
     * @param description names the operator instance, e.g. {@code "sum (uid sum-1) 2/4"}
     * @param source names what was restored (a file, a checkpoint)
     * @throws IncompatibleStateException if the key serializer or the number of key groups differ
     */
    public static void checkRestoredKeys(String description, TypeSerializer<?> keySerializer, int maxParallelism,
            String restoredKeySerializer, int restoredMaxParallelism, String source) {
        if (!restoredKeySerializer.equals(keySerializer.description())) {
            throw new IncompatibleStateException(description + ": " + source + " holds keys written as "
                    + restoredKeySerializer + " but the operator's keys are " + keySerializer.description()
                    + "; key the stream as before or start without this state");
        }
        if (restoredMaxParallelism != maxParallelism) {
            throw new IncompatibleStateException(description + ": " + source + " was written with "
                    + restoredMaxParallelism + " key groups but the job has " + maxParallelism
                    + "; the max parallelism of a job cannot change across a restore");
        }
    }

    /**
     * @return {@code keyGroup}
     * @throws IllegalArgumentException if {@code keyGroup} is not in {@code owned}: the records were
     *     not partitioned by this key
     */
    public static int requireOwned(String description, Object key, int keyGroup, KeyGroupRange owned) {
        if (!owned.contains(keyGroup)) {
            throw new IllegalArgumentException(description + ": key " + key + " is in key group " + keyGroup
                    + ", not in this instance's key groups " + owned + "; the records must be partitioned by"
                    + " the same key and max parallelism");
        }
        return keyGroup;
    }
}
