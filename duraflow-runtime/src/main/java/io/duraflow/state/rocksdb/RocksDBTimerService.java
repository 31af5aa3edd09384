package io.duraflow.state.rocksdb;

import io.duraflow.api.types.DataReader;
import io.duraflow.state.backend.InternalTimerService;
import io.duraflow.state.backend.TimerCallback;
import java.util.Arrays;
import java.util.Comparator;
import java.util.TreeSet;
import org.rocksdb.RocksIterator;

/**
 * The timers of one time domain in a column family of their own ({@code _timers} for processing
 * time, {@code _event_timers} for event time; {@code kg | time | key}, see {@link KeyLayout}), so
 * they are part of every native snapshot and may outgrow memory. Within a key group
 * the database orders timers by time; memory holds only each key group's earliest timer (its
 * <em>head</em>, read with one seek) in a set ordered by time, whose first element is the next timer
 * to fire. Registering compares with the head; deleting or firing the head reads the key group's
 * next one. The column is not cached ({@link StateStore}): heads are found by seeking in it, from
 * the head just removed: the timers of a key group fire in key order, so the next head comes
 * after it, and the seek skips none of the deletions left by the timers fired before (seeking from
 * the key group's start skipped all of them, one per fired timer, until a compaction). Task
 * thread only.
 */
final class RocksDBTimerService<K> implements InternalTimerService<K> {
    /** The earliest timer of a key group: its database key and time. */
    private record Head(int keyGroup, long time, byte[] dbKey) {
    }

    private static final Comparator<Head> ORDER = Comparator.comparingLong(Head::time).thenComparingInt(Head::keyGroup);

    private final RocksDBKeyedStateBackend<K> backend;
    private final StateStore store;
    private final int column;
    private final int firstKeyGroup;
    private final Head[] heads;
    private final TreeSet<Head> order = new TreeSet<>(ORDER);
    private final DataReader keyReader = new DataReader();
    private int size;

    RocksDBTimerService(RocksDBKeyedStateBackend<K> backend, StateStore store, int column, int firstKeyGroup,
            int keyGroupCount) {
        this.backend = backend;
        this.store = store;
        this.column = column;
        this.firstKeyGroup = firstKeyGroup;
        this.heads = new Head[keyGroupCount];
    }

    /** Reads the heads and counts the timers of a restored database. */
    void load() {
        size = 0;
        try (RocksIterator iterator = store.iterator(column)) {
            for (iterator.seekToFirst(); iterator.isValid(); iterator.next()) {
                size++;
            }
        }
        for (int i = 0; i < heads.length; i++) {
            reloadHead(firstKeyGroup + i, null);
        }
    }

    @Override
    public void registerTimer(K key, long time) {
        byte[] dbKey = backend.timerKey(key, time);
        if (store.contains(column, dbKey, dbKey.length)) {
            return;
        }
        store.put(column, dbKey, dbKey.length, dbKey, 0);
        size++;
        int keyGroup = KeyLayout.readKeyGroup(dbKey);
        Head head = heads[keyGroup - firstKeyGroup];
        if (head == null || time < head.time() || (time == head.time() && Arrays.compareUnsigned(dbKey, head.dbKey()) < 0)) {
            setHead(keyGroup, new Head(keyGroup, time, dbKey));
        }
    }

    @Override
    public void deleteTimer(K key, long time) {
        byte[] dbKey = backend.timerKey(key, time);
        if (!store.contains(column, dbKey, dbKey.length)) {
            return;
        }
        store.delete(column, dbKey, dbKey.length);
        size--;
        int keyGroup = KeyLayout.readKeyGroup(dbKey);
        Head head = heads[keyGroup - firstKeyGroup];
        if (head != null && Arrays.equals(head.dbKey(), dbKey)) {
            reloadHead(keyGroup, dbKey);
        }
    }

    @Override
    public long nextTimerTime() {
        return order.isEmpty() ? NO_TIMER : order.first().time();
    }

    @Override
    public int fireUpTo(long now, TimerCallback<K> callback) throws Exception {
        int fired = 0;
        while (!order.isEmpty() && order.first().time() <= now) {
            Head head = order.first();
            store.delete(column, head.dbKey(), head.dbKey().length);
            size--;
            reloadHead(head.keyGroup(), head.dbKey());
            byte[] dbKey = head.dbKey();
            int keyOffset = KeyLayout.KEY_GROUP_BYTES + 8;
            keyReader.reset(dbKey, keyOffset, dbKey.length - keyOffset);
            K key = backend.keySerializer().read(keyReader);
            backend.setCurrentKey(key);
            callback.onTimer(key, head.time());
            fired++;
        }
        return fired;
    }

    @Override
    public int size() {
        return size;
    }

    private void setHead(int keyGroup, Head head) {
        Head old = heads[keyGroup - firstKeyGroup];
        if (old != null) {
            order.remove(old);
        }
        heads[keyGroup - firstKeyGroup] = head;
        if (head != null) {
            order.add(head);
        }
    }

    /**
     * Reads the key group's earliest timer, seeking from {@code removedHead} (the head just deleted,
     * the smallest key the group had) or, when null, from the group's start.
     */
    private void reloadHead(int keyGroup, byte[] removedHead) {
        byte[] prefix = KeyLayout.keyGroupPrefix(keyGroup);
        Head head = null;
        try (RocksIterator iterator = store.iterator(column)) {
            iterator.seek(removedHead == null ? prefix : removedHead);
            if (iterator.isValid()) {
                byte[] dbKey = iterator.key();
                if (KeyLayout.startsWith(dbKey, prefix, prefix.length)) {
                    head = new Head(keyGroup, KeyLayout.readTime(dbKey, KeyLayout.KEY_GROUP_BYTES), dbKey);
                }
            }
        }
        setHead(keyGroup, head);
    }
}
