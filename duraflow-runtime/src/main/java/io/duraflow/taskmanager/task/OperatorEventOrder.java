package io.duraflow.taskmanager.task;

import io.duraflow.rpc.proto.OperatorEvent;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Puts the operator events of one task attempt back in the order the JobManager sent them. Each
 * event is its own RPC, and two RPCs may be handled by two threads, so "splits, then no more
 * splits" can arrive as "no more splits, then splits", and a reader would end without reading
 * its splits. The JobManager numbers each attempt's events from 1; an event that arrives early
 * waits here for the ones before it. Sequence 0 means unordered (applied at once); a sequence
 * number seen before is a duplicate and dropped. Thread-safe: RPC threads call {@link #accept}.
 */
final class OperatorEventOrder {
    private static final Logger LOG = LoggerFactory.getLogger(OperatorEventOrder.class);

    private final Consumer<OperatorEvent> apply;
    /** The sequence number the next event to apply carries. */
    private long next = 1;
    private final TreeMap<Long, OperatorEvent> early = new TreeMap<>();

    OperatorEventOrder(Consumer<OperatorEvent> apply) {
        this.apply = apply;
    }

    synchronized void accept(long sequence, OperatorEvent event) {
        if (sequence == 0) {
            apply.accept(event);
            return;
        }
        if (sequence < next || early.containsKey(sequence)) {
            LOG.debug("Dropping operator event {} (sequence {}): it was delivered before", event.getEventCase(),
                    sequence);
            return;
        }
        early.put(sequence, event);
        while (!early.isEmpty() && early.firstKey() == next) {
            Map.Entry<Long, OperatorEvent> first = early.pollFirstEntry();
            next++;
            apply.accept(first.getValue());
        }
    }

    /** Events that came before an earlier one and wait for it. */
    synchronized int waiting() {
        return early.size();
    }
}
