package io.duraflow.state.rocksdb;

import io.duraflow.api.types.DataWriter;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.state.KeyGroupRange;
import io.duraflow.state.KeyGroupsStateHandle;
import io.duraflow.state.format.KeyedSnapshotFormat;
import io.duraflow.state.format.KeyedSnapshotFormat.Header;
import io.duraflow.state.format.KeyedSnapshotFormat.StateMeta;
import io.duraflow.state.storage.CheckpointOutputStream;
import io.duraflow.state.storage.CheckpointStreamFactory;
import io.duraflow.state.storage.CheckpointedStateScope;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksIterator;
import org.rocksdb.Snapshot;

/**
 * A snapshot in the canonical {@link KeyedSnapshotFormat} (a savepoint, or every checkpoint with
 * {@code state.backend.incremental: false}): the synchronous part takes a RocksDB snapshot (a
 * sequence number, no copy); the asynchronous part iterates it key group by key group, one
 * iterator per column family moving forward only, and writes each state's block (copied bytes, see
 * {@link CanonicalBlocks}) and the timers of both domains. Restored state that was not declared
 * yet is written from its raw blocks unchanged. The heap backend restores the result, and this backend too.
 */
final class CanonicalSnapshot {
    /** A state as the synchronous part saw it: its columns, each possibly null. */
    record Part(StateMeta meta, ColumnFamilyHandle entries, ColumnFamilyHandle raw) {
    }

    private CanonicalSnapshot() {
    }

    static KeyGroupsStateHandle write(RocksDBInstance db, Snapshot snapshot, TypeSerializer<?> keySerializer,
            int maxParallelism, KeyGroupRange range, List<Part> parts, ColumnFamilyHandle processingTimers,
            ColumnFamilyHandle eventTimers, CheckpointStreamFactory streams, BooleanSupplier stopRequested)
            throws IOException {
        List<StateMeta> metas = new ArrayList<>();
        for (Part part : parts) {
            metas.add(part.meta());
        }
        Header header = new Header(keySerializer.description(), maxParallelism, metas);
        CanonicalBlocks blocks = new CanonicalBlocks(keySerializer);
        List<RocksIterator> entries = new ArrayList<>();
        List<RocksIterator> raws = new ArrayList<>();
        byte[] first = KeyLayout.keyGroupPrefix(range.start());
        try (ReadOptions read = new ReadOptions().setSnapshot(snapshot).setFillCache(false);
                CheckpointOutputStream out = streams.createCheckpointOutputStream(CheckpointedStateScope.EXCLUSIVE)) {
            for (Part part : parts) {
                entries.add(open(db, part.entries(), read, first));
                raws.add(open(db, part.raw(), read, first));
            }
            RocksIterator processingTimerIterator = open(db, processingTimers, read, first);
            entries.add(processingTimerIterator);
            RocksIterator eventTimerIterator = open(db, eventTimers, read, first);
            entries.add(eventTimerIterator);
            KeyedSnapshotFormat.Writer writer = new KeyedSnapshotFormat.Writer(out, range, header);
            DataWriter block = new DataWriter(64 * 1024);
            for (int keyGroup = range.start(); keyGroup <= range.end(); keyGroup++) {
                if (Thread.interrupted() || stopRequested.getAsBoolean()) {
                    throw new InterruptedIOException("snapshot of key groups " + range + " cancelled");
                }
                writer.beginKeyGroup(keyGroup);
                for (int i = 0; i < parts.size(); i++) {
                    RocksIterator raw = raws.get(i);
                    if (raw != null && raw.isValid() && KeyLayout.readKeyGroup(raw.key()) == keyGroup) {
                        byte[] bytes = raw.value();
                        writer.addBlock(KeyedSnapshotFormat.stateId(i), bytes, 0, bytes.length);
                        raw.next();
                        continue;
                    }
                    RocksIterator iterator = entries.get(i);
                    if (iterator != null && blocks.entriesBlock(parts.get(i).meta().kind(), iterator, keyGroup, block)) {
                        writer.addBlock(KeyedSnapshotFormat.stateId(i), block.buffer(), 0, block.position());
                    }
                }
                if (processingTimerIterator != null
                        && blocks.timersBlock(processingTimerIterator, keyGroup, block)) {
                    writer.addBlock(KeyedSnapshotFormat.PROCESSING_TIMERS_ID, block.buffer(), 0, block.position());
                }
                if (eventTimerIterator != null && blocks.timersBlock(eventTimerIterator, keyGroup, block)) {
                    writer.addBlock(KeyedSnapshotFormat.EVENT_TIMERS_ID, block.buffer(), 0, block.position());
                }
                writer.endKeyGroup();
            }
            return writer.finish();
        } finally {
            entries.forEach(CanonicalSnapshot::close);
            raws.forEach(CanonicalSnapshot::close);
        }
    }

    private static RocksIterator open(RocksDBInstance db, ColumnFamilyHandle column, ReadOptions read, byte[] first) {
        if (column == null) {
            return null;
        }
        RocksIterator iterator = db.db().newIterator(column, read);
        iterator.seek(first);
        return iterator;
    }

    private static void close(RocksIterator iterator) {
        if (iterator != null) {
            iterator.close();
        }
    }
}
