package io.duraflow.state.rocksdb;

import io.duraflow.state.backend.RestoreChecks;

import io.duraflow.api.types.CorruptDataException;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.state.IncrementalKeyedStateHandle;
import io.duraflow.state.KeyGroupRange;
import io.duraflow.state.KeyGroupsStateHandle;
import io.duraflow.state.KeyedStateHandle;
import io.duraflow.state.StreamStateHandle;
import io.duraflow.state.backend.IncompatibleStateException;
import io.duraflow.state.format.KeyedSnapshotFormat;
import io.duraflow.state.format.KeyedSnapshotFormat.Block;
import io.duraflow.state.format.KeyedSnapshotFormat.Header;
import io.duraflow.state.format.KeyedSnapshotFormat.StateMeta;
import io.duraflow.state.storage.CorruptStateException;
import io.duraflow.state.storage.StreamStateHandles;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Executor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;

/**
 * Builds the database of a backend from the handles the redistribution assigned it. Its rules: see
 * docs/design/state-backends.md#rocksdbrestore.
 */
final class RocksDBRestore {
    private static final long BATCH_BYTES = 4 << 20;

    /** The restored database and what it holds. */
    record Restored(RocksDBInstance db, Map<String, BackendMetadata.State> states,
            Map<String, StreamStateHandle> reusable) {
    }

    private final String description;
    private final TypeSerializer<?> keySerializer;
    private final int maxParallelism;
    private final KeyGroupRange owned;
    private final RocksDBResources resources;
    private final Map<String, BackendMetadata.State> states = new TreeMap<>();
    private final Map<String, String> sources = new HashMap<>();

    RocksDBRestore(String description, TypeSerializer<?> keySerializer, int maxParallelism, KeyGroupRange owned,
            RocksDBResources resources) {
        this.description = description;
        this.keySerializer = keySerializer;
        this.maxParallelism = maxParallelism;
        this.owned = owned;
        this.resources = resources;
    }

    Restored restore(List<KeyedStateHandle> handles, Path dbDirectory, Path workDirectory) throws IOException {
        List<IncrementalKeyedStateHandle> natives = new ArrayList<>();
        List<KeyGroupsStateHandle> canonical = new ArrayList<>();
        for (KeyedStateHandle handle : handles) {
            if (handle instanceof IncrementalKeyedStateHandle incremental) {
                natives.add(incremental);
            } else if (handle instanceof KeyGroupsStateHandle keyGroups) {
                canonical.add(keyGroups);
            } else {
                throw new IOException(description + ": the RocksDB state backend cannot restore "
                        + handle.getClass().getSimpleName());
            }
        }
        LocalFiles.deleteTree(dbDirectory);
        Map<String, StreamStateHandle> reusable = Map.of();
        IncrementalKeyedStateHandle base = null;
        for (IncrementalKeyedStateHandle handle : natives) {
            if (base == null || overlap(handle) > overlap(base)) {
                base = handle;
            }
        }
        RocksDBInstance db;
        if (base != null) {
            BackendMetadata metadata = readMetadata(base);
            download(base, dbDirectory);
            db = RocksDBInstance.open(dbDirectory, resources);
            try {
                clip(db, base.keyGroupRange());
                if (natives.size() == 1 && canonical.isEmpty() && base.keyGroupRange().equals(owned)) {
                    Map<String, StreamStateHandle> files = new HashMap<>();
                    for (IncrementalKeyedStateHandle.SharedFile file : base.sharedFiles()) {
                        files.put(file.name(), file.handle());
                    }
                    reusable = files;
                }
                int index = 0;
                for (IncrementalKeyedStateHandle other : natives) {
                    if (other != base) {
                        copyFrom(db, other, workDirectory.resolve("restore-" + index++));
                    }
                }
                checkStates(metadata, StreamStateHandles.describe(base.metaData()));
            } catch (IOException | RuntimeException e) {
                db.close();
                throw e;
            }
        } else {
            db = RocksDBInstance.open(dbDirectory, resources);
        }
        try {
            db.columnOrCreate(KeyLayout.TIMERS_COLUMN);
            db.columnOrCreate(KeyLayout.EVENT_TIMERS_COLUMN);
            for (KeyGroupsStateHandle handle : canonical) {
                insertCanonical(db, handle);
            }
        } catch (IOException | RuntimeException e) {
            db.close();
            throw e;
        }
        return new Restored(db, states, reusable);
    }

    private int overlap(IncrementalKeyedStateHandle handle) {
        return handle.keyGroupRange().intersection(owned).size();
    }

    private BackendMetadata readMetadata(IncrementalKeyedStateHandle handle) throws IOException {
        BackendMetadata metadata = BackendMetadata.read(handle.metaData());
        String source = StreamStateHandles.describe(handle.metaData());
        checkHeader(metadata.keySerializerDescription(), metadata.maxParallelism(), source);
        return metadata;
    }

    private void checkStates(BackendMetadata metadata, String source) {
        for (BackendMetadata.State state : metadata.states()) {
            addState(state.meta(), state.columns(), source);
        }
    }

    private void addState(StateMeta meta, int columns, String source) {
        BackendMetadata.State earlier = states.get(meta.name());
        if (earlier == null) {
            states.put(meta.name(), new BackendMetadata.State(meta, columns));
            sources.put(meta.name(), source);
            return;
        }
        if (!earlier.meta().equals(meta)) {
            throw new IncompatibleStateException(description + ": state '" + meta.name() + "' is "
                    + meta.kind().name().toLowerCase(Locale.ROOT) + " " + meta.description() + " in " + source
                    + " but " + earlier.meta().description() + " in " + sources.get(meta.name())
                    + "; the restored checkpoint mixes two jobs");
        }
        states.put(meta.name(), new BackendMetadata.State(meta, earlier.columns() | columns));
    }

    private void checkHeader(String keySerializerDescription, int handleMaxParallelism, String source) {
        RestoreChecks.checkRestoredKeys(description, keySerializer, maxParallelism, keySerializerDescription,
                handleMaxParallelism, source);
    }

    /** Deletes the key groups of {@code held} that this backend does not own. */
    private void clip(RocksDBInstance db, KeyGroupRange held) throws IOException {
        if (held.start() < owned.start()) {
            db.deleteRangeEverywhere(KeyLayout.keyGroupPrefix(held.start()),
                    KeyLayout.keyGroupPrefix(Math.min(held.end() + 1, owned.start())));
        }
        if (held.end() > owned.end()) {
            db.deleteRangeEverywhere(KeyLayout.keyGroupPrefix(Math.max(held.start(), owned.end() + 1)),
                    KeyLayout.keyGroupPrefix(held.end() + 1));
        }
    }

    /** Downloads every file of a native snapshot into {@code directory} under its database name. */
    private void download(IncrementalKeyedStateHandle handle, Path directory) throws IOException {
        Files.createDirectories(directory);
        List<Transfers.Job<Path>> jobs = new ArrayList<>();
        for (IncrementalKeyedStateHandle.SharedFile file : handle.sharedFiles()) {
            jobs.add(stopped -> copy(file.handle(), directory.resolve(file.name())));
        }
        for (IncrementalKeyedStateHandle.PrivateFile file : handle.privateFiles()) {
            jobs.add(stopped -> copy(file.handle(), directory.resolve(file.name())));
        }
        Executor pool = resources.transfers();
        Transfers.runAll(jobs, pool, () -> false, path -> { }, description + ": downloading checkpoint "
                + handle.checkpointId());
    }

    private static Path copy(StreamStateHandle handle, Path target) throws IOException {
        long copied;
        try (InputStream in = StreamStateHandles.open(handle); OutputStream out = Files.newOutputStream(target)) {
            copied = in.transferTo(out);
        }
        if (copied != handle.length()) {
            throw new IOException(StreamStateHandles.describe(handle) + " is shorter than its state handle says"
                    + " (ends after " + copied + " bytes): the checkpoint is incomplete; restore from another"
                    + " checkpoint");
        }
        if (Thread.currentThread().isInterrupted()) {
            throw new InterruptedIOException("download of " + target + " interrupted");
        }
        return target;
    }

    /** Copies the owned key groups of another native snapshot into {@code db}. */
    private void copyFrom(RocksDBInstance db, IncrementalKeyedStateHandle handle, Path directory) throws IOException {
        BackendMetadata metadata = readMetadata(handle);
        checkStates(metadata, StreamStateHandles.describe(handle.metaData()));
        LocalFiles.deleteTree(directory);
        download(handle, directory);
        KeyGroupRange common = handle.keyGroupRange().intersection(owned);
        byte[] from = KeyLayout.keyGroupPrefix(common.start());
        try (RocksDBInstance source = RocksDBInstance.openReadOnly(directory, resources);
                WriteBatch batch = new WriteBatch()) {
            for (String name : source.columnNames()) {
                ColumnFamilyHandle target = db.columnOrCreate(name);
                try (RocksIterator iterator = source.db().newIterator(source.column(name))) {
                    for (iterator.seek(from); iterator.isValid(); iterator.next()) {
                        byte[] key = iterator.key();
                        if (KeyLayout.readKeyGroup(key) > common.end()) {
                            break;
                        }
                        batch.put(target, key, iterator.value());
                        if (batch.getDataSize() > BATCH_BYTES) {
                            db.write(batch);
                        }
                    }
                }
            }
            db.write(batch);
        } catch (RocksDBException e) {
            throw new IOException(description + ": copying key groups " + common + " of "
                    + StreamStateHandles.describe(handle.metaData()) + " failed: " + e.getMessage(), e);
        } finally {
            LocalFiles.deleteTreeQuietly(directory);
        }
    }

    /**
     * Inserts the owned key groups of a canonical snapshot: each domain's timers into its timers
     * column, state blocks as raw blocks.
     */
    private void insertCanonical(RocksDBInstance db, KeyGroupsStateHandle handle) throws IOException {
        if (handle.keyGroupRange().intersection(owned).isEmpty()) {
            return;
        }
        CanonicalBlocks blocks = new CanonicalBlocks(keySerializer);
        ColumnFamilyHandle processingTimers = db.column(KeyLayout.TIMERS_COLUMN);
        ColumnFamilyHandle eventTimers = db.column(KeyLayout.EVENT_TIMERS_COLUMN);
        try (WriteBatch batch = new WriteBatch()) {
            KeyedSnapshotFormat.read(handle, owned, new KeyedSnapshotFormat.Visitor() {
                private final Map<Integer, StateMeta> byId = new HashMap<>();

                @Override
                public void header(Header header, String source) throws IOException {
                    checkHeader(header.keySerializerDescription(), header.maxParallelism(), source);
                    for (int i = 0; i < header.states().size(); i++) {
                        StateMeta meta = header.states().get(i);
                        byId.put(KeyedSnapshotFormat.stateId(i), meta);
                        addState(meta, BackendMetadata.RAW, source);
                    }
                }

                @Override
                public void keyGroup(int keyGroup, List<Block> groupBlocks, String source) throws IOException {
                    try {
                        for (Block block : groupBlocks) {
                            ColumnFamilyHandle timers = switch (block.stateId()) {
                                case KeyedSnapshotFormat.PROCESSING_TIMERS_ID -> processingTimers;
                                case KeyedSnapshotFormat.EVENT_TIMERS_ID -> eventTimers;
                                default -> null;
                            };
                            if (timers != null) {
                                try {
                                    blocks.insertTimers(keyGroup, block.bytes(), timers, batch);
                                } catch (CorruptDataException e) {
                                    throw new CorruptStateException(source + ": " + (timers == eventTimers ? "event"
                                            : "processing") + "-time timers of key group " + keyGroup
                                            + " cannot be read with key serializer " + keySerializer.description()
                                            + ": " + e.getMessage(), e);
                                }
                                continue;
                            }
                            StateMeta meta = byId.get(block.stateId());
                            if (meta == null) {
                                throw new CorruptStateException(source + ": key group " + keyGroup + " has a block of"
                                        + " state id " + block.stateId() + ", which its header does not list");
                            }
                            batch.put(db.columnOrCreate(KeyLayout.rawColumn(meta.name())),
                                    KeyLayout.keyGroupPrefix(keyGroup), block.bytes());
                        }
                        if (batch.getDataSize() > BATCH_BYTES) {
                            db.write(batch);
                        }
                    } catch (RocksDBException e) {
                        throw new IOException(description + ": restoring key group " + keyGroup + " of " + source
                                + " failed: " + e.getMessage(), e);
                    }
                }
            });
            db.write(batch);
        }
    }
}
