package io.duraflow.state.heap;

import io.duraflow.api.types.DataReader;
import io.duraflow.api.types.DataWriter;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.state.backend.InternalTimerService;
import io.duraflow.state.backend.TimerCallback;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;

/**
 * The timers of one time domain of the heap backend (it has one instance per domain). The timers
 * themselves are a {@link StateTable} per key group (timer -> itself), so they are deduplicated
 * per (key, time), frozen for snapshots like any state, and restored by key group. A priority
 * queue over all of them orders firing; a deleted timer stays in the queue until it reaches the
 * head and is found missing from its key group (deleting is O(1)); the queue is rebuilt when such
 * leftovers outnumber the live timers. Task thread only.
 */
final class HeapTimerService<K> implements InternalTimerService<K> {
    /** One timer; {@code keyGroup} is derived from the key, kept to find the timer's group cheaply. */
    record Timer<K>(K key, long time, int keyGroup) {
        // Written out: a record's generated equals and hashCode go through method handles that the
        // JIT does not always inline, and timers are hash keys on every registration and firing.
        @Override
        public boolean equals(Object other) {
            return other instanceof Timer<?> timer && time == timer.time && key.equals(timer.key);
        }

        @Override
        public int hashCode() {
            return 31 * key.hashCode() + Long.hashCode(time);
        }
    }

    private static final Comparator<Timer<?>> BY_TIME = (a, b) -> Long.compare(a.time, b.time);

    private final HeapKeyedStateBackend<K> backend;
    private final StateTable<Timer<K>, Boolean> timers;
    private PriorityQueue<Timer<K>> queue = new PriorityQueue<>(BY_TIME);
    private int size;
    /**
     * How many queue entries may be timers no longer in their key group (deleted, or copies of a
     * timer deleted and registered again): while none may be, the queue's head is live without a
     * lookup, as it is for operators that never delete (windows).
     */
    private int stale;

    HeapTimerService(HeapKeyedStateBackend<K> backend, int firstKeyGroup, int keyGroupCount) {
        this.backend = backend;
        this.timers = new StateTable<>(firstKeyGroup, keyGroupCount, null);
    }

    @Override
    public void registerTimer(K key, long time) {
        Timer<K> timer = new Timer<>(key, time, backend.keyGroupOf(key));
        if (timers.writable(timer.keyGroup()).putIfAbsent(timer, Boolean.TRUE) != null) {
            return;
        }
        queue.add(timer);
        size++;
    }

    @Override
    public void deleteTimer(K key, long time) {
        Timer<K> timer = new Timer<>(key, time, backend.keyGroupOf(key));
        if (!timers.readable(timer.keyGroup()).containsKey(timer)) {
            return;
        }
        timers.writable(timer.keyGroup()).remove(timer);
        size--;
        stale++;
        if (queue.size() > 2 * size + 1024) {
            rebuildQueue();
        }
    }

    @Override
    public long nextTimerTime() {
        if (size == 0) {
            return NO_TIMER; // the keyed operator asks after every record; most jobs have no timers
        }
        Timer<K> head = liveHead();
        return head == null ? NO_TIMER : head.time();
    }

    @Override
    public int fireUpTo(long now, TimerCallback<K> callback) throws Exception {
        int fired = 0;
        for (Timer<K> head = liveHead(); head != null && head.time() <= now; head = liveHead()) {
            queue.poll();
            timers.writable(head.keyGroup()).remove(head);
            size--;
            backend.setCurrentKey(head.key());
            callback.onTimer(head.key(), head.time());
            fired++;
        }
        return fired;
    }

    @Override
    public int size() {
        return size;
    }

    /** The earliest timer that still exists, dropping deleted ones from the queue's head. */
    private Timer<K> liveHead() {
        Timer<K> head = queue.peek();
        while (stale > 0 && head != null && !timers.readable(head.keyGroup()).containsKey(head)) {
            queue.poll();
            stale--;
            head = queue.peek();
        }
        return head;
    }

    private void rebuildQueue() {
        PriorityQueue<Timer<K>> rebuilt = new PriorityQueue<>(Math.max(16, size), BY_TIME);
        Set<Timer<K>> seen = new HashSet<>();
        for (Timer<K> timer : queue) {
            if (timers.readable(timer.keyGroup()).containsKey(timer) && seen.add(timer)) {
                rebuilt.add(timer);
            }
        }
        queue = rebuilt;
        stale = 0;
    }

    Map<Timer<K>, Boolean>[] freeze() {
        return timers.freeze();
    }

    /** Writes one frozen key group's timers as a block; false when it has none. */
    static <K> boolean writeBlock(Map<Timer<K>, Boolean> group, TypeSerializer<K> keySerializer, DataWriter out) {
        if (group.isEmpty()) {
            return false;
        }
        out.writeVarInt(group.size());
        for (Timer<K> timer : group.keySet()) {
            keySerializer.write(timer.key(), out);
            out.writeLong(timer.time());
        }
        return true;
    }

    /** Adds the timers of a restored block to {@code keyGroup}. */
    void restoreBlock(int keyGroup, byte[] block, TypeSerializer<K> keySerializer) {
        DataReader in = new DataReader(block);
        int count = in.readVarInt();
        for (int i = 0; i < count; i++) {
            K key = keySerializer.read(in);
            long time = in.readLong();
            Timer<K> timer = new Timer<>(key, time, keyGroup);
            if (timers.writable(keyGroup).put(timer, Boolean.TRUE) == null) {
                queue.add(timer);
                size++;
            }
        }
        if (in.hasRemaining()) {
            throw new io.duraflow.api.types.CorruptDataException(in.remaining() + " bytes left after " + count
                    + " timers");
        }
    }
}
