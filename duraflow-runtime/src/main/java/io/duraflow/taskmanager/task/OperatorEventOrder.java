package io.duraflow.taskmanager.task;

import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Puts what the JobManager's coordinator side sends one task attempt back in the order it was
 * sent: operator events, and a source task's checkpoint triggers. Each is its own RPC, and two
 * RPCs may be handled by two threads, so "splits, then no more splits" can arrive as "no more
 * splits, then splits", and a reader would end without reading its splits; and a split assigned
 * after the enumerators' snapshot could reach the reader before the trigger of that checkpoint,
 * which would put it in both snapshots. The JobManager numbers each attempt's messages from 1
 * (a trigger's number is reserved when the enumerators snapshot); one that arrives early waits
 * here for the ones before it. Sequence 0 means unordered (applied at once); a sequence number
 * seen before is a duplicate and dropped. Thread-safe: RPC threads call {@link #accept}.
 *
 * @param <T> what is ordered
 */
final class OperatorEventOrder<T> {
    private static final Logger LOG = LoggerFactory.getLogger(OperatorEventOrder.class);

    private final Consumer<T> apply;
    /** The sequence number the next message to apply carries. */
    private long next = 1;
    private final TreeMap<Long, T> early = new TreeMap<>();

    OperatorEventOrder(Consumer<T> apply) {
        this.apply = apply;
    }

    synchronized void accept(long sequence, T message) {
        if (sequence == 0) {
            apply.accept(message);
            return;
        }
        if (sequence < next || early.containsKey(sequence)) {
            LOG.debug("Dropping the message with sequence {}: it was delivered before", sequence);
            return;
        }
        early.put(sequence, message);
        while (!early.isEmpty() && early.firstKey() == next) {
            Map.Entry<Long, T> first = early.pollFirstEntry();
            next++;
            apply.accept(first.getValue());
        }
    }

    /** Messages that came before an earlier one and wait for it. */
    synchronized int waiting() {
        return early.size();
    }
}
