package io.duraflow.spill;

import io.duraflow.api.types.CorruptDataException;
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
 * Inner equi-join within a memory budget: a hybrid hash join that partitions to disk recursively
 * and joins in chunks where partitioning cannot help, so a join of any size and skew finishes.
 * Single-threaded; {@link #close()} deletes every partition file. See
 * docs/design/spilling.md#spillinghashjoin.
 */
public final class SpillingHashJoin<K, L, R> implements AutoCloseable {
    /** Receives each matching (left, right) pair. */
    @FunctionalInterface
    public interface MatchConsumer<L, R> {
        void accept(L left, R right) throws Exception;
    }

    /** Estimated heap cost of a build record beyond its serialized size (map entry, list slot, headers). */
    public static final int ENTRY_OVERHEAD_BYTES = 48;
    static final int FAN_OUT = 32;
    private static final int FAN_OUT_BITS = Integer.numberOfTrailingZeros(FAN_OUT);
    static final int MAX_LEVEL = 4;
    private static final int PARTITION_STREAM_BUFFER_BYTES = 4 * 1024;
    /** Cursors read partition files in sequence; the key hash they compute is not used. */
    private static final KeyOrder.KeyHasher NO_HASH = (bytes, offset, length) -> 0;

    private enum State { BUILDING, PROBING, FINISHED, CLOSED }

    private final TypeSerializer<K> keyType;
    private final TypeSerializer<L> leftType;
    private final TypeSerializer<R> rightType;
    private final long memoryBudgetBytes;
    private final int fanOut;
    /** Every partition file on disk: what {@link #close()} deletes. */
    private final SpillFiles files;
    /** Every writer that may still be open: what {@link #close()} closes. */
    private final List<RunWriter> openWriters = new ArrayList<>();
    private final DataWriter keyScratch = new DataWriter(64);
    private final DataWriter recordScratch = new DataWriter(256);
    private final DataReader reader = new DataReader();
    private final Level top;
    private State state = State.BUILDING;
    private long spilledBytes;
    private int spilledPartitions;
    private int chunkedPartitions;
    private int deepestLevel;

    public SpillingHashJoin(TypeSerializer<K> keyType, TypeSerializer<L> leftType, TypeSerializer<R> rightType,
            long memoryBudgetBytes, Path spillDirectory) {
        this(keyType, leftType, rightType, memoryBudgetBytes, spillDirectory, FAN_OUT);
    }

    /** With a smaller fan-out, tests reach deep levels with few records. */
    SpillingHashJoin(TypeSerializer<K> keyType, TypeSerializer<L> leftType, TypeSerializer<R> rightType,
            long memoryBudgetBytes, Path spillDirectory, int fanOut) {
        if (memoryBudgetBytes < 0) {
            throw new IllegalArgumentException("memoryBudgetBytes must not be negative, was " + memoryBudgetBytes);
        }
        if (fanOut < 2 || fanOut > FAN_OUT || Integer.bitCount(fanOut) != 1) {
            throw new IllegalArgumentException("fanOut must be a power of two in [2, " + FAN_OUT + "], was " + fanOut);
        }
        this.keyType = Objects.requireNonNull(keyType, "keyType");
        this.leftType = Objects.requireNonNull(leftType, "leftType");
        this.rightType = Objects.requireNonNull(rightType, "rightType");
        this.memoryBudgetBytes = memoryBudgetBytes;
        this.files = new SpillFiles(Objects.requireNonNull(spillDirectory, "spillDirectory"));
        this.fanOut = fanOut;
        this.top = new Level(0);
    }

    /** Adds a build (left) record with its key; {@code serializedBytes} is its size on the wire. */
    public void build(K key, L left, int serializedBytes) throws IOException {
        requireState(State.BUILDING);
        top.build(Objects.requireNonNull(key, "join key"), left, serializedBytes);
    }

    /** The build side is complete: the partition files written so far are closed. */
    public void endBuild() throws IOException {
        requireState(State.BUILDING);
        state = State.PROBING;
        top.endBuild();
    }

    /** Matches a probe (right) record now if its partition is in memory, otherwise spills it for {@link #finish}. */
    public void probe(K key, R right, MatchConsumer<L, R> out) throws Exception {
        requireState(State.PROBING);
        top.probe(Objects.requireNonNull(key, "join key"), right, out);
    }

    /** Joins what was spilled, then deletes the partition files. */
    public void finish(MatchConsumer<L, R> out) throws Exception {
        requireState(State.PROBING);
        state = State.FINISHED;
        try {
            top.finish(out);
        } finally {
            deleteFiles();
        }
    }

    /** Bytes written to partition files, at every level. */
    public long spilledBytes() {
        return spilledBytes;
    }

    /** Partitions written to disk, at every level. */
    public int spilledPartitions() {
        return spilledPartitions;
    }

    /** Spilled partitions joined in chunks because partitioning could not split them. */
    public int chunkedPartitions() {
        return chunkedPartitions;
    }

    /** The deepest level that ran: 0 when nothing spilled. */
    public int deepestLevel() {
        return deepestLevel;
    }

    /** Drops all state, closes open files and deletes every partition file; idempotent. */
    @Override
    public void close() {
        state = State.CLOSED;
        deleteFiles();
    }

    private void requireState(State expected) {
        if (state != expected) {
            throw new IllegalStateException("join is " + state.name().toLowerCase(Locale.ROOT)
                    + ", expected " + expected.name().toLowerCase(Locale.ROOT));
        }
    }

    /** One partitioning level: level 0 reads the operator's inputs, level n+1 one spilled partition of level n. */
    private final class Level {
        private final int level;
        private final int seed;
        /** The whole build side while it fits; null once partitioned. */
        private Map<K, List<L>> table = new HashMap<>();
        /** Null until the level outgrows the budget. */
        private List<Partition> partitions;
        private long inMemoryBytes;
        private long buildRecords;

        Level(int level) {
            this.level = level;
            // Distinct from the exchange's key-group seed and from every other level's.
            this.seed = 0x5bd1e995 + level * 0x9E3779B9;
            deepestLevel = Math.max(deepestLevel, level);
        }

        void build(K key, L left, int serializedBytes) throws IOException {
            buildRecords++;
            long bytes = Math.max(0, serializedBytes) + (long) ENTRY_OVERHEAD_BYTES;
            if (partitions == null) {
                table.computeIfAbsent(key, k -> new ArrayList<>(1)).add(left);
                inMemoryBytes += bytes;
                if (inMemoryBytes > memoryBudgetBytes) {
                    partition();
                }
                return;
            }
            Partition partition = partitions.get(partitionOf(key));
            if (partition.table == null) {
                partition.writeBuild(left);
                return;
            }
            partition.table.computeIfAbsent(key, k -> new ArrayList<>(1)).add(left);
            partition.bytes += bytes;
            partition.buildRecords++;
            inMemoryBytes += bytes;
            while (inMemoryBytes > memoryBudgetBytes && spillLargest()) {
                // each spill frees one partition's share
            }
        }

        /** Splits the table into partitions (their shares of the estimate by record count), then spills. */
        private void partition() throws IOException {
            partitions = new ArrayList<>(fanOut);
            for (int i = 0; i < fanOut; i++) {
                partitions.add(new Partition());
            }
            for (Map.Entry<K, List<L>> entry : table.entrySet()) {
                Partition partition = partitions.get(partitionOf(entry.getKey()));
                partition.table.put(entry.getKey(), entry.getValue());
                partition.buildRecords += entry.getValue().size();
            }
            table = null;
            long assigned = 0;
            for (Partition partition : partitions) {
                partition.bytes = (long) ((double) inMemoryBytes * partition.buildRecords / buildRecords);
                assigned += partition.bytes;
            }
            inMemoryBytes = assigned; // so that spilling every partition brings it to exactly 0
            while (inMemoryBytes > memoryBudgetBytes && spillLargest()) {
                // each spill frees one partition's share
            }
        }

        /** Writes the in-memory partition with the largest estimate to its build file; false if none holds records. */
        private boolean spillLargest() throws IOException {
            Partition largest = null;
            for (Partition partition : partitions) {
                if (partition.table != null && partition.buildRecords > 0
                        && (largest == null || partition.bytes > largest.bytes)) {
                    largest = partition;
                }
            }
            if (largest == null) {
                return false;
            }
            Map<K, List<L>> records = largest.table;
            largest.table = null;
            inMemoryBytes -= largest.bytes;
            largest.bytes = 0;
            largest.buildRecords = 0; // counted again as they are written
            spilledPartitions++;
            for (Map.Entry<K, List<L>> entry : records.entrySet()) {
                serializeKey(entry.getKey());
                for (L left : entry.getValue()) {
                    largest.writeBuild(left);
                }
            }
            return true;
        }

        void endBuild() throws IOException {
            if (partitions != null) {
                for (Partition partition : partitions) {
                    partition.finishBuild();
                }
            }
        }

        void probe(K key, R right, MatchConsumer<L, R> out) throws Exception {
            List<L> matches;
            if (partitions == null) {
                matches = table.get(key);
            } else {
                Partition partition = partitions.get(partitionOf(key));
                if (partition.table == null) {
                    partition.writeProbe(right);
                    return;
                }
                matches = partition.table.get(key);
            }
            if (matches != null) {
                for (L left : matches) {
                    out.accept(left, right);
                }
            }
        }

        void finish(MatchConsumer<L, R> out) throws Exception {
            table = null;
            if (partitions == null) {
                return;
            }
            for (Partition partition : partitions) {
                partition.table = null; // the memory is the next level's
            }
            for (Partition partition : partitions) {
                if (partition.buildFile == null) {
                    continue;
                }
                partition.finishProbe();
                if (partition.probeFile != null) {
                    if (level + 1 >= MAX_LEVEL || partition.buildRecords * 2 > buildRecords) {
                        chunkedPartitions++;
                        joinInChunks(partition.buildFile, partition.probeFile, out);
                    } else {
                        joinInNextLevel(partition.buildFile, partition.probeFile, out);
                    }
                }
                files.delete(partition.buildFile);
                files.delete(partition.probeFile);
            }
        }

        private void joinInNextLevel(Path buildFile, Path probeFile, MatchConsumer<L, R> out) throws Exception {
            Level next = new Level(level + 1);
            try (RunCursor build = new RunCursor(buildFile, 0, NO_HASH)) {
                while (build.advance()) {
                    next.build(readKey(build), readLeft(build), build.accLength());
                }
            }
            next.endBuild();
            try (RunCursor probe = new RunCursor(probeFile, 0, NO_HASH)) {
                while (probe.advance()) {
                    next.probe(readKey(probe), readRight(probe), out);
                }
            }
            next.finish(out);
        }

        private int partitionOf(K key) {
            serializeKey(key);
            int hash = KeyOrder.murmur3(keyScratch.buffer(), 0, keyScratch.position(), seed);
            return (hash >>> (32 - FAN_OUT_BITS)) & (fanOut - 1);
        }
    }

    /**
     * A build chunk that fits the budget at a time, each matched against the whole probe file:
     * the last resort for a partition that hashing cannot split.
     */
    private void joinInChunks(Path buildFile, Path probeFile, MatchConsumer<L, R> out) throws Exception {
        try (RunCursor build = new RunCursor(buildFile, 0, NO_HASH)) {
            boolean more = build.advance();
            while (more) {
                Map<K, List<L>> chunk = new HashMap<>();
                long bytes = 0;
                do {
                    chunk.computeIfAbsent(readKey(build), k -> new ArrayList<>(1)).add(readLeft(build));
                    bytes += build.accLength() + (long) ENTRY_OVERHEAD_BYTES;
                    more = build.advance();
                } while (more && bytes <= memoryBudgetBytes);
                try (RunCursor probe = new RunCursor(probeFile, 0, NO_HASH)) {
                    while (probe.advance()) {
                        List<L> matches = chunk.get(readKey(probe));
                        if (matches != null) {
                            R right = readRight(probe);
                            for (L left : matches) {
                                out.accept(left, right);
                            }
                        }
                    }
                }
            }
        }
    }

    /** One partition of a level: in memory (table set) or spilled (build file set), never both. */
    private final class Partition {
        Map<K, List<L>> table = new HashMap<>();
        long bytes;
        long buildRecords;
        Path buildFile;
        RunWriter buildWriter;
        Path probeFile;
        RunWriter probeWriter;

        /** Appends {@code left} under the key in {@link #keyScratch}. */
        void writeBuild(L left) throws IOException {
            if (buildWriter == null) {
                buildFile = files.create("join-build-", ".part");
                buildWriter = openWriter(buildFile);
            }
            write(buildWriter, leftType, left);
            buildRecords++;
        }

        void finishBuild() throws IOException {
            if (buildWriter != null) {
                finishWriter(buildWriter);
                buildWriter = null;
            }
        }

        /** Appends {@code right} under the key in {@link #keyScratch}. */
        void writeProbe(R right) throws IOException {
            if (probeWriter == null) {
                probeFile = files.create("join-probe-", ".part");
                probeWriter = openWriter(probeFile);
            }
            write(probeWriter, rightType, right);
        }

        void finishProbe() throws IOException {
            if (probeWriter != null) {
                finishWriter(probeWriter);
                probeWriter = null;
            }
        }
    }

    private void serializeKey(K key) {
        keyScratch.reset();
        keyType.write(key, keyScratch);
    }

    private <T> void write(RunWriter writer, TypeSerializer<T> type, T record) throws IOException {
        recordScratch.reset();
        type.write(record, recordScratch);
        writer.write(keyScratch.buffer(), 0, keyScratch.position(), recordScratch.buffer(), 0,
                recordScratch.position());
    }

    private RunWriter openWriter(Path file) throws IOException {
        RunWriter writer = new RunWriter(file, PARTITION_STREAM_BUFFER_BYTES);
        openWriters.add(writer);
        return writer;
    }

    private void finishWriter(RunWriter writer) throws IOException {
        writer.finish();
        openWriters.remove(writer);
        spilledBytes += writer.bytesWritten();
    }

    private K readKey(RunCursor cursor) {
        return read(keyType, cursor.block(), cursor.keyOffset(), cursor.keyLength());
    }

    private L readLeft(RunCursor cursor) {
        return read(leftType, cursor.block(), cursor.accOffset(), cursor.accLength());
    }

    private R readRight(RunCursor cursor) {
        return read(rightType, cursor.block(), cursor.accOffset(), cursor.accLength());
    }

    private <T> T read(TypeSerializer<T> type, byte[] bytes, int offset, int length) {
        reader.reset(bytes, offset, length);
        T value = type.read(reader);
        if (reader.hasRemaining()) {
            throw new CorruptDataException(type.description() + " left " + reader.remaining()
                    + " bytes of a spilled join record unread");
        }
        return value;
    }

    private void deleteFiles() {
        for (RunWriter writer : openWriters) {
            try {
                writer.close();
            } catch (IOException ignored) {
                // The file is deleted next; a failed close loses nothing.
            }
        }
        openWriters.clear();
        files.deleteAll();
    }
}
