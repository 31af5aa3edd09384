package io.duraflow.spill;

import io.duraflow.api.types.CorruptDataException;
import io.duraflow.api.types.DataReader;
import io.duraflow.api.types.DataWriter;
import io.duraflow.api.types.TypeSerializer;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;

/**
 * K-way merge of sorted spill runs: a priority queue of {@link RunCursor}s yields keys in
 * {@link KeyOrder}; the partial accumulators of one key (equal bytes) are deserialized and merged,
 * oldest run first, and handed on once per key.
 */
final class RunMerger<A> {
    /** Receives each distinct key once: its serialized bytes and its fully merged accumulator. */
    @FunctionalInterface
    interface GroupConsumer<A> {
        void accept(int hash, byte[] key, int keyOffset, int keyLength, A accumulator) throws Exception;
    }

    private final TypeSerializer<A> accType;
    private final SpillingAggregator.Merger<A> merger;
    private final KeyOrder.KeyHasher hasher;
    private final DataReader accReader = new DataReader();
    private final DataWriter groupKey = new DataWriter();

    RunMerger(TypeSerializer<A> accType, SpillingAggregator.Merger<A> merger, KeyOrder.KeyHasher hasher) {
        this.accType = accType;
        this.merger = merger;
        this.hasher = hasher;
    }

    /** Merges {@code runs} (oldest first) into {@code out}; the run files are left for the caller to delete. */
    void merge(List<Path> runs, GroupConsumer<A> out) throws Exception {
        List<RunCursor> cursors = new ArrayList<>(runs.size());
        try {
            PriorityQueue<RunCursor> queue = new PriorityQueue<>(Math.max(1, runs.size()), RunCursor::compare);
            for (Path run : runs) {
                RunCursor cursor = new RunCursor(run, cursors.size(), hasher);
                cursors.add(cursor);
                if (cursor.advance()) {
                    queue.add(cursor);
                }
            }
            while (!queue.isEmpty()) {
                RunCursor head = queue.poll();
                int hash = head.hash();
                // The key must be copied: advancing the cursor may load its next block over it.
                groupKey.reset();
                groupKey.writeBytes(head.block(), head.keyOffset(), head.keyLength());
                A accumulator = readAccumulator(head);
                requeue(queue, head);
                while (!queue.isEmpty() && KeyOrder.equal(hash, groupKey.buffer(), 0, groupKey.position(),
                        queue.peek().hash(), queue.peek().block(), queue.peek().keyOffset(), queue.peek().keyLength())) {
                    RunCursor same = queue.poll();
                    accumulator = merger.merge(accumulator, readAccumulator(same));
                    if (accumulator == null) {
                        throw new NullPointerException("merger returned null");
                    }
                    requeue(queue, same);
                }
                out.accept(hash, groupKey.buffer(), 0, groupKey.position(), accumulator);
            }
        } finally {
            closeAll(cursors);
        }
    }

    private static void requeue(PriorityQueue<RunCursor> queue, RunCursor cursor) throws IOException {
        if (cursor.advance()) {
            queue.add(cursor);
        }
    }

    private A readAccumulator(RunCursor cursor) {
        accReader.reset(cursor.block(), cursor.accOffset(), cursor.accLength());
        A accumulator = accType.read(accReader);
        if (accReader.hasRemaining()) {
            throw new CorruptDataException(accType.description() + " left " + accReader.remaining()
                    + " bytes of a spilled accumulator unread");
        }
        return accumulator;
    }

    private static void closeAll(List<RunCursor> cursors) {
        for (RunCursor cursor : cursors) {
            try {
                cursor.close();
            } catch (IOException ignored) {
                // Read-only files: a failed close loses nothing, and must not hide the real outcome.
            }
        }
    }
}
