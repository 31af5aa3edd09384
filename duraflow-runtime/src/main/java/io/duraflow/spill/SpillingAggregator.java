package io.duraflow.spill;

import io.duraflow.api.types.DataReader;
import io.duraflow.api.types.DataWriter;
import io.duraflow.api.types.TypeSerializer;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Groups (key, partial accumulator) pairs within a memory budget, spilling sorted runs and merging
 * them at {@link #finish}. Single-threaded; {@link #close()} deletes the run files. See
 * docs/design/spilling.md#spillingaggregator.
 */
public final class SpillingAggregator<K, A> implements AutoCloseable {
    /** Combines two partial accumulators of one key; {@code left} is the older. */
    @FunctionalInterface
    public interface Merger<A> {
        A merge(A left, A right) throws Exception;
    }

    /** Receives each distinct key once with its final accumulator. */
    @FunctionalInterface
    public interface ResultConsumer<K, A> {
        void accept(K key, A accumulator) throws Exception;
    }

    /** Estimated heap cost of one map entry beyond the caller's estimate of the accumulator. */
    public static final int ENTRY_OVERHEAD_BYTES = 64;
    static final int DEFAULT_MAX_FAN_IN = 64;

    private enum State { OPEN, FINISHED, CLOSED }

    /** A key's accumulator so far. */
    static final class Slot<A> {
        A accumulator;

        Slot(A accumulator) {
            this.accumulator = accumulator;
        }
    }

    private final TypeSerializer<K> keyType;
    private final TypeSerializer<A> accType;
    private final Merger<A> merger;
    private final long memoryBudgetBytes;
    private final KeyOrder.KeyHasher hasher;
    private final int maxFanIn;
    /** The accumulator of each key, in a holder updated in place so a merge costs one lookup. */
    private final Map<K, Slot<A>> entries = new HashMap<>();
    /** Runs holding the spilled data, oldest first. */
    private final List<Path> runs = new ArrayList<>();
    /** Every run file on disk, including one being written: what {@link #close()} deletes. */
    private final SpillFiles runFiles;
    private final DataWriter accScratch = new DataWriter();
    private long estimatedBytes;
    private long spilledBytes;
    private int spillCount;
    private State state = State.OPEN;

    public SpillingAggregator(TypeSerializer<K> keyType, TypeSerializer<A> accType, Merger<A> merger,
            long memoryBudgetBytes, Path spillDirectory) {
        this(keyType, accType, merger, memoryBudgetBytes, spillDirectory, KeyOrder.MURMUR3, DEFAULT_MAX_FAN_IN);
    }

    SpillingAggregator(TypeSerializer<K> keyType, TypeSerializer<A> accType, Merger<A> merger,
            long memoryBudgetBytes, Path spillDirectory, KeyOrder.KeyHasher hasher, int maxFanIn) {
        if (memoryBudgetBytes < 0) {
            throw new IllegalArgumentException("memoryBudgetBytes must not be negative, was " + memoryBudgetBytes);
        }
        if (maxFanIn < 2) {
            throw new IllegalArgumentException("maxFanIn must be at least 2, was " + maxFanIn);
        }
        this.keyType = Objects.requireNonNull(keyType, "keyType");
        this.accType = Objects.requireNonNull(accType, "accType");
        this.merger = Objects.requireNonNull(merger, "merger");
        this.memoryBudgetBytes = memoryBudgetBytes;
        this.runFiles = new SpillFiles(Objects.requireNonNull(spillDirectory, "spillDirectory"));
        this.hasher = hasher;
        this.maxFanIn = maxFanIn;
    }

    /**
     * Merges {@code partial} into the accumulator of {@code key}, spilling if the estimate
     * exceeds the budget.
     *
     * @param approxBytes the caller's estimate of the heap size of key and partial; counted for
     *     the first partial of each key only
     */
    public void add(K key, A partial, int approxBytes) throws Exception {
        requireState(State.OPEN);
        Objects.requireNonNull(partial, "partial accumulator");
        Slot<A> slot = entries.get(key);
        if (slot == null) {
            entries.put(key, new Slot<>(partial));
            estimatedBytes += Math.max(0, approxBytes) + ENTRY_OVERHEAD_BYTES;
            if (estimatedBytes > memoryBudgetBytes) {
                spill();
            }
        } else {
            slot.accumulator = Objects.requireNonNull(merger.merge(slot.accumulator, partial), "merger returned null");
        }
    }

    /**
     * Emits every distinct key exactly once with all its partials merged, then deletes the run
     * files. Keys come in no particular order when nothing spilled, in {@code KeyOrder} otherwise.
     */
    public void finish(ResultConsumer<K, A> out) throws Exception {
        requireState(State.OPEN);
        state = State.FINISHED;
        try {
            if (runs.isEmpty()) {
                for (Map.Entry<K, Slot<A>> entry : entries.entrySet()) {
                    out.accept(entry.getKey(), entry.getValue().accumulator);
                }
                return;
            }
            if (!entries.isEmpty()) {
                spill();
            }
            while (runs.size() > maxFanIn) {
                mergePass();
            }
            DataReader keyReader = new DataReader();
            new RunMerger<>(accType, merger, hasher).merge(runs, (hash, key, offset, length, acc) -> {
                keyReader.reset(key, offset, length);
                out.accept(keyType.read(keyReader), acc);
            });
        } finally {
            entries.clear();
            estimatedBytes = 0;
            deleteRuns();
        }
    }

    /** Bytes written to run files by spills of the in-memory map (not counting re-merges). */
    public long spilledBytes() {
        return spilledBytes;
    }

    /** How often the in-memory map was written to a run, including the remainder at finish. */
    public int spillCount() {
        return spillCount;
    }

    /** Drops all state and deletes the run files; idempotent. */
    @Override
    public void close() {
        state = State.CLOSED;
        entries.clear();
        estimatedBytes = 0;
        deleteRuns();
    }

    private void requireState(State expected) {
        if (state != expected) {
            throw new IllegalStateException("aggregator is " + state.name().toLowerCase(Locale.ROOT)
                    + ", expected " + expected.name().toLowerCase(Locale.ROOT));
        }
    }

    private void spill() throws IOException {
        SortedEntries<A> sorted = SortedEntries.of(entries, keyType, hasher);
        Path run = runFiles.create("aggregate-", ".run");
        try (RunWriter writer = new RunWriter(run)) {
            for (int i = 0; i < sorted.size(); i++) {
                accScratch.reset();
                accType.write(sorted.accumulator(i), accScratch);
                writer.write(sorted.keyBytes(), sorted.keyOffset(i), sorted.keyLength(i),
                        accScratch.buffer(), 0, accScratch.position());
            }
            writer.finish();
            spilledBytes += writer.bytesWritten();
        }
        runs.add(run);
        spillCount++;
        entries.clear();
        estimatedBytes = 0;
    }

    /**
     * Merges each group of {@code maxFanIn} consecutive runs into one. Groups are consecutive so
     * the merged runs stay oldest first, which keeps older partials on the merger's left.
     */
    private void mergePass() throws Exception {
        List<Path> inputs = new ArrayList<>(runs);
        runs.clear();
        for (int start = 0; start < inputs.size(); start += maxFanIn) {
            List<Path> group = inputs.subList(start, Math.min(start + maxFanIn, inputs.size()));
            runs.add(group.size() == 1 ? group.get(0) : mergeGroup(group));
        }
    }

    private Path mergeGroup(List<Path> group) throws Exception {
        Path merged = runFiles.create("aggregate-", ".run");
        try (RunWriter writer = new RunWriter(merged)) {
            new RunMerger<>(accType, merger, hasher).merge(group, (hash, key, offset, length, acc) -> {
                accScratch.reset();
                accType.write(acc, accScratch);
                writer.write(key, offset, length, accScratch.buffer(), 0, accScratch.position());
            });
            writer.finish();
        }
        for (Path run : group) {
            runFiles.delete(run);
        }
        return merged;
    }

    private void deleteRuns() {
        runFiles.deleteAll();
        runs.clear();
    }
}
