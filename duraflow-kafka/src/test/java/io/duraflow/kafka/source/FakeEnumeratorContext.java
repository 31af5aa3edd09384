package io.duraflow.kafka.source;

import io.duraflow.api.source.SplitEnumeratorContext;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.BiConsumer;

/** Records what an enumerator does; its async work runs only when a test says so, inline. */
final class FakeEnumeratorContext implements SplitEnumeratorContext<KafkaPartitionSplit> {
    record Assignment(KafkaPartitionSplit split, int subtask) {}

    record AsyncCall<T>(Callable<T> work, BiConsumer<T, Throwable> handler, long initialDelayMs, long periodMs) {
        void run() {
            T result;
            try {
                result = work.call();
            } catch (Throwable failure) {
                handler.accept(null, failure);
                return;
            }
            handler.accept(result, null);
        }
    }

    final int parallelism;
    final List<Assignment> assignments = new ArrayList<>();
    final List<Integer> noMoreSplits = new ArrayList<>();
    final List<AsyncCall<?>> asyncCalls = new ArrayList<>();

    FakeEnumeratorContext(int parallelism) {
        this.parallelism = parallelism;
    }

    @Override
    public int parallelism() {
        return parallelism;
    }

    @Override
    public void assignSplit(KafkaPartitionSplit split, int subtask) {
        assignments.add(new Assignment(split, subtask));
    }

    @Override
    public void signalNoMoreSplits(int subtask) {
        noMoreSplits.add(subtask);
    }

    @Override
    public <T> void callAsync(Callable<T> work, BiConsumer<T, Throwable> handler, long initialDelayMs, long periodMs) {
        asyncCalls.add(new AsyncCall<>(work, handler, initialDelayMs, periodMs));
    }

    /** Runs the (only) periodic work once, as the runtime's worker and main thread would. */
    void runDiscovery() {
        if (asyncCalls.size() != 1) {
            throw new AssertionError("expected one async call, got " + asyncCalls.size());
        }
        asyncCalls.get(0).run();
    }

    List<String> assignedIds() {
        List<String> ids = new ArrayList<>();
        assignments.forEach(a -> ids.add(a.split().splitId()));
        return ids;
    }
}
