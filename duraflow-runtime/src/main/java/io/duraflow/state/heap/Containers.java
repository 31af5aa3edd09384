package io.duraflow.state.heap;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

/**
 * The mutable per-key values of map and list states, marked with the {@link StateTable#epoch()}
 * they were made in: a container of an earlier epoch may be held by a snapshot and is copied
 * before the task changes it ({@link StateTable#writableContainer}); one of the current epoch
 * belongs to the task alone. A plain {@link HashMap} or {@link ArrayList} (as a restore reads them)
 * counts as made before every epoch.
 */
final class Containers {
    private Containers() {}

    /** A container and its epoch. */
    interface Container {
        int epoch();
    }

    /** A map state's value for one key. */
    static final class EpochMap<K, V> extends HashMap<K, V> implements Container {
        private final int epoch;

        EpochMap(int epoch) {
            this.epoch = epoch;
        }

        EpochMap(int epoch, Map<K, V> entries) {
            super(entries);
            this.epoch = epoch;
        }

        @Override
        public int epoch() {
            return epoch;
        }
    }

    /** A list state's value for one key. */
    static final class EpochList<T> extends ArrayList<T> implements Container {
        private final int epoch;

        EpochList(int epoch) {
            this.epoch = epoch;
        }

        EpochList(int epoch, Collection<T> elements) {
            super(elements);
            this.epoch = epoch;
        }

        @Override
        public int epoch() {
            return epoch;
        }
    }

    /** Whether {@code value} is a container made in {@code epoch}, which the task may change in place. */
    static boolean isOfEpoch(Object value, int epoch) {
        return value instanceof Container container && container.epoch() == epoch;
    }
}
