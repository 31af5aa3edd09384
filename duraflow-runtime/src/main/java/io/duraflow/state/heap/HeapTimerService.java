package io.duraflow.state.heap;

import io.duraflow.api.types.DataReader;
import io.duraflow.api.types.DataWriter;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.state.backend.InternalTimerService;
import io.duraflow.state.backend.TimerCallback;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The timers of one time domain of the heap backend (it has one instance per domain). The timers
 * themselves are a {@link StateTable} per key group (timer -> itself), so they are deduplicated
 * per (key, time), frozen for snapshots like any state, and restored by key group. A queue over
 * all of them orders firing: by time, then in the order they were registered. It keeps a bucket
 * per time, as timers share few times (every key's window ends on the same boundaries): a
 * registration appends to its time's bucket and a firing takes the head of the first, where a
 * priority queue over thousands of timers cost a sift through them for each. (A timer at a time
 * of its own pays for a bucket, about 120 bytes more than a queue's slot.) A deleted timer
 * stays in the queue until it reaches the head and is found missing from its key group (deleting
 * is O(1)); the queue is rebuilt when such leftovers outnumber the live timers. Task thread only.
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

    private final HeapKeyedStateBackend<K> backend;
    private final StateTable<Timer<K>, Boolean> timers;
    /** The queued timers by time, each time's in the order they were registered; no bucket is empty. */
    private final TreeMap<Long, ArrayDeque<Timer<K>>> queue = new TreeMap<>();
    /** The first bucket of {@link #queue}, or null when it must be looked up again. */
    private ArrayDeque<Timer<K>> head;
    /** Timers in {@link #queue}, live or stale. */
    private int queued;
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
        enqueue(timer);
        size++;
    }

    private void enqueue(Timer<K> timer) {
        ArrayDeque<Timer<K>> bucket = queue.get(timer.time());
        if (bucket == null) {
            bucket = new ArrayDeque<>(4);
            queue.put(timer.time(), bucket);
            head = null; // it may come first
        }
        bucket.addLast(timer);
        queued++;
    }

    /** The first queued timer, live or stale; null when none is queued. */
    private Timer<K> peek() {
        if (head == null) {
            if (queue.isEmpty()) {
                return null;
            }
            head = queue.firstEntry().getValue();
        }
        return head.peekFirst();
    }

    /** Takes the first queued timer off the queue ({@link #peek()} returned it). */
    private void poll() {
        head.pollFirst();
        queued--;
        if (head.isEmpty()) {
            queue.pollFirstEntry();
            head = null;
        }
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
        if (queued > 2 * size + 1024) {
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
            poll();
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
        Timer<K> first = peek();
        while (stale > 0 && first != null && !timers.readable(first.keyGroup()).containsKey(first)) {
            poll();
            stale--;
            first = peek();
        }
        return first;
    }

    private void rebuildQueue() {
        Set<Timer<K>> seen = new HashSet<>();
        List<Timer<K>> live = new ArrayList<>(size);
        for (ArrayDeque<Timer<K>> bucket : queue.values()) {
            for (Timer<K> timer : bucket) {
                if (timers.readable(timer.keyGroup()).containsKey(timer) && seen.add(timer)) {
                    live.add(timer);
                }
            }
        }
        queue.clear();
        head = null;
        queued = 0;
        live.forEach(this::enqueue);
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
                enqueue(timer);
                size++;
            }
        }
        if (in.hasRemaining()) {
            throw new io.duraflow.api.types.CorruptDataException(in.remaining() + " bytes left after " + count
                    + " timers");
        }
    }
}
