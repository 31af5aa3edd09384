package io.duraflow.state.rocksdb;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.CompressionType;
import org.rocksdb.DBOptions;
import org.rocksdb.InfoLogLevel;
import org.rocksdb.Options;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.StringAppendOperator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * One open RocksDB database with its options and column families (by name), tuned for state that
 * checkpoints make durable: no write-ahead log, no fsync, memory charged to the TaskManager's
 * shared {@link RocksDBResources}, bloom filters so that reading a key that has no state is cheap,
 * and an append merge operator (empty delimiter) for list state. Column families are created on
 * first use and opened all at once when an existing database is opened.
 *
 * <p>Thread-safety: RocksDB itself is thread-safe; the column family map is changed only on the
 * task thread (or during restore, before the backend is handed out), and read by asynchronous
 * snapshot parts only through handles captured in the synchronous part.
 */
final class RocksDBInstance implements AutoCloseable {
    private static final String DEFAULT_COLUMN = new String(RocksDB.DEFAULT_COLUMN_FAMILY, StandardCharsets.UTF_8);

    private final Path directory;
    private final DBOptions dbOptions;
    private final ColumnFamilyOptions columnOptions;
    private final StringAppendOperator appendOperator;
    private final RocksDB db;
    private final Map<String, ColumnFamilyHandle> columns = new TreeMap<>();
    private final List<ColumnFamilyHandle> allHandles = new ArrayList<>();
    final WriteOptions writeOptions;
    final ReadOptions readOptions;
    private boolean closed;

    private RocksDBInstance(Path directory, RocksDBResources resources, boolean readOnly) throws IOException {
        this.directory = directory;
        this.dbOptions = new DBOptions().setCreateIfMissing(true).setCreateMissingColumnFamilies(true)
                .setUseFsync(false).setMaxBackgroundJobs(2).setMaxOpenFiles(-1)
                .setInfoLogLevel(InfoLogLevel.WARN_LEVEL).setKeepLogFileNum(2).setStatsDumpPeriodSec(0)
                .setAvoidFlushDuringShutdown(true).setWriteBufferManager(resources.writeBufferManager());
        this.appendOperator = new StringAppendOperator("");
        BlockBasedTableConfig table = new BlockBasedTableConfig().setBlockCache(resources.cache())
                .setCacheIndexAndFilterBlocks(true).setPinL0FilterAndIndexBlocksInCache(true)
                .setFilterPolicy(new BloomFilter(10, false)).setBlockSize(16 * 1024);
        this.columnOptions = new ColumnFamilyOptions().setMergeOperator(appendOperator)
                .setTableFormatConfig(table).setCompressionType(CompressionType.LZ4_COMPRESSION)
                .setWriteBufferSize(32L << 20).setMaxWriteBufferNumber(3).setLevelCompactionDynamicLevelBytes(true);
        this.writeOptions = new WriteOptions().setDisableWAL(true).setSync(false);
        this.readOptions = new ReadOptions();
        try {
            Files.createDirectories(directory);
            List<String> names = new ArrayList<>();
            if (Files.exists(directory.resolve("CURRENT"))) {
                try (Options listing = new Options()) {
                    for (byte[] name : RocksDB.listColumnFamilies(listing, directory.toString())) {
                        names.add(new String(name, StandardCharsets.UTF_8));
                    }
                }
            }
            if (!names.contains(DEFAULT_COLUMN)) {
                names.add(0, DEFAULT_COLUMN);
            }
            List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
            for (String name : names) {
                descriptors.add(new ColumnFamilyDescriptor(name.getBytes(StandardCharsets.UTF_8), columnOptions));
            }
            this.db = readOnly ? RocksDB.openReadOnly(dbOptions, directory.toString(), descriptors, allHandles)
                    : RocksDB.open(dbOptions, directory.toString(), descriptors, allHandles);
            for (int i = 0; i < names.size(); i++) {
                columns.put(names.get(i), allHandles.get(i));
            }
        } catch (RocksDBException | IOException | RuntimeException e) {
            closeOptions();
            throw new IOException("cannot open the RocksDB database in " + directory + ": " + e.getMessage(), e);
        }
    }

    /** Opens (or creates) the database in {@code directory}. */
    static RocksDBInstance open(Path directory, RocksDBResources resources) throws IOException {
        return new RocksDBInstance(directory, resources, false);
    }

    /** Opens an existing database for reading only (the other handles of a scale-in restore). */
    static RocksDBInstance openReadOnly(Path directory, RocksDBResources resources) throws IOException {
        return new RocksDBInstance(directory, resources, true);
    }

    RocksDB db() {
        return db;
    }

    Path directory() {
        return directory;
    }

    /** The column family named {@code name}, or null. */
    ColumnFamilyHandle column(String name) {
        return columns.get(name);
    }

    /** The column family named {@code name}, created if it does not exist. */
    ColumnFamilyHandle columnOrCreate(String name) throws IOException {
        ColumnFamilyHandle handle = columns.get(name);
        if (handle == null) {
            try {
                handle = db.createColumnFamily(new ColumnFamilyDescriptor(name.getBytes(StandardCharsets.UTF_8),
                        columnOptions));
            } catch (RocksDBException e) {
                throw new IOException("cannot create column family '" + name + "' in " + directory + ": "
                        + e.getMessage(), e);
            }
            columns.put(name, handle);
            allHandles.add(handle);
        }
        return handle;
    }

    /** Drops a column family and its data; nothing if there is none. */
    void drop(String name) throws IOException {
        ColumnFamilyHandle handle = columns.remove(name);
        if (handle != null) {
            try {
                db.dropColumnFamily(handle);
            } catch (RocksDBException e) {
                throw new IOException("cannot drop column family '" + name + "' in " + directory + ": "
                        + e.getMessage(), e);
            }
            allHandles.remove(handle);
            handle.close();
        }
    }

    /** Names of the column families besides RocksDB's default one. */
    List<String> columnNames() {
        List<String> names = new ArrayList<>(columns.keySet());
        names.remove(DEFAULT_COLUMN);
        return names;
    }

    /** Writes and clears {@code batch}. */
    void write(WriteBatch batch) throws IOException {
        try {
            db.write(writeOptions, batch);
            batch.clear();
        } catch (RocksDBException e) {
            throw new IOException("writing to the RocksDB database in " + directory + " failed: " + e.getMessage(), e);
        }
    }

    /** Deletes keys {@code [from, to)} in every column family. */
    void deleteRangeEverywhere(byte[] from, byte[] to) throws IOException {
        try {
            for (Map.Entry<String, ColumnFamilyHandle> column : columns.entrySet()) {
                if (!column.getKey().equals(DEFAULT_COLUMN)) {
                    db.deleteRange(column.getValue(), writeOptions, from, to);
                }
            }
        } catch (RocksDBException e) {
            throw new IOException("deleting key groups in " + directory + " failed: " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (ColumnFamilyHandle handle : allHandles) {
            handle.close();
        }
        db.close();
        closeOptions();
    }

    private void closeOptions() {
        readOptions.close();
        writeOptions.close();
        columnOptions.close();
        appendOperator.close();
        dbOptions.close();
    }
}
