package io.duraflow.simulation;

import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * Puts a task attempt's operator events and source checkpoint triggers back in the order the
 * JobManager numbered them, as the real task does ({@code OperatorEventOrder}, package-private
 * there): sequence 0 applies at once, an early one waits for those before it, a repeat is dropped.
 */
final class EventOrder<T> {
    private final Consumer<T> apply;
    private long next = 1;
    private final TreeMap<Long, T> early = new TreeMap<>();

    EventOrder(Consumer<T> apply) {
        this.apply = apply;
    }

    void accept(long sequence, T message) {
        if (sequence == 0) {
            apply.accept(message);
            return;
        }
        if (sequence < next || early.containsKey(sequence)) {
            return;
        }
        early.put(sequence, message);
        while (!early.isEmpty() && early.firstKey() == next) {
            next++;
            apply.accept(early.pollFirstEntry().getValue());
        }
    }
}
