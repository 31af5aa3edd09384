package io.duraflow.config;

/**
 * Options for the state of streaming jobs: which backend keeps keyed state while a task runs, and
 * how its snapshots are written to checkpoint storage.
 *
 * <pre>
 *   state.backend.type              heap: state lives in objects on the heap; snapshots copy it whole
 *                                   rocksdb: state lives in a local RocksDB database per operator instance
 *   state.backend.incremental       rocksdb only: checkpoints upload only the database files not uploaded before
 *   state.backend.rocksdb.*         native memory per TaskManager, upload threads, the write-back cache per backend
 *   state.storage.inline-threshold  state streams of at most this many bytes travel inside the checkpoint's
 *                                   metadata instead of becoming files of their own
 * </pre>
 */
public final class StateOptions {
    /** Where keyed state lives while the task runs; value of {@code state.backend.type}. */
    public enum StateBackendType {
        /** Objects in maps on the heap, one map per state and key group, copied on write while a snapshot is written. */
        HEAP,
        /**
         * Serialized entries in a local RocksDB database per operator instance (one column family per
         * state), so state may exceed memory; checkpoints are incremental by default.
         */
        ROCKSDB
    }

    /** Above this, a single inline handle would make every acknowledgement and {@code _metadata} file heavy. */
    private static final MemorySize MAX_INLINE_THRESHOLD = MemorySize.ofMebiBytes(1);

    public static final ConfigOption<StateBackendType> BACKEND_TYPE = ConfigOption.key("state.backend.type")
            .enumType(StateBackendType.class)
            .defaultValue(StateBackendType.HEAP)
            .description("Where keyed state lives while a streaming task runs: 'heap' keeps it as objects in"
                    + " memory and writes a full copy at every checkpoint; 'rocksdb' keeps it serialized in a local"
                    + " RocksDB database per operator instance (state may exceed memory) and, with"
                    + " state.backend.incremental, uploads only new database files at each checkpoint.");

    public static final ConfigOption<Boolean> INCREMENTAL = ConfigOption.key("state.backend.incremental")
            .booleanType()
            .defaultValue(true)
            .description("For the rocksdb backend: a checkpoint uploads only the database's SST files that no"
                    + " completed checkpoint uploaded before and refers to the others; false writes every checkpoint"
                    + " in full, in the canonical format every backend restores. The heap backend ignores it.");

    public static final ConfigOption<MemorySize> ROCKSDB_MEMORY_SIZE = ConfigOption.key("state.backend.rocksdb.memory.size")
            .memoryType()
            .defaultValue(MemorySize.ofMebiBytes(256))
            .validator(ConfigValidator.of(v -> v.bytes() >= MemorySize.ofMebiBytes(8).bytes(),
                    "a memory size of at least 8 mb such as '256 mb'"))
            .description("Native memory that all RocksDB databases of one TaskManager share (outside the Java"
                    + " heap): one block cache of this size, which the write buffers (memtables) are charged to.");

    public static final ConfigOption<Double> ROCKSDB_WRITE_BUFFER_RATIO =
            ConfigOption.key("state.backend.rocksdb.memory.write-buffer-ratio")
                    .doubleType()
                    .defaultValue(0.5)
                    .validator(ConfigValidator.doubleBetween(0.05, 0.95))
                    .description("Share of state.backend.rocksdb.memory.size that write buffers (memtables) may take"
                            + " before RocksDB flushes them; the rest caches blocks read from SST files.");

    public static final ConfigOption<Integer> ROCKSDB_UPLOAD_THREADS = ConfigOption.key("state.backend.rocksdb.upload-threads")
            .intType()
            .defaultValue(4)
            .validator(ConfigValidator.intRange(1, 64))
            .description("Threads of the TaskManager that upload RocksDB files to checkpoint storage (shared by all"
                    + " its RocksDB backends), off the task threads.");

    public static final ConfigOption<MemorySize> ROCKSDB_WRITE_BACK_CACHE_SIZE =
            ConfigOption.key("state.backend.rocksdb.write-back-cache.size")
                    .memoryType()
                    .defaultValue(MemorySize.ofMebiBytes(16))
                    .validator(ConfigValidator.of(v -> v.bytes() == 0 || v.bytes() >= MemorySize.ofKibiBytes(64).bytes(),
                            "0 bytes (no cache) or a memory size of at least 64 kb such as '16 mb'"))
                    .description("Java heap that each RocksDB keyed backend (operator instance) may use for a"
                            + " write-back cache of serialized state values in front of its database: reads and"
                            + " writes of cached values cost no RocksDB call; changed values are written to the"
                            + " database when the cache is full (least recently used first) and before every"
                            + " snapshot. 0 bytes turns it off (every read and write goes to RocksDB).");

    public static final ConfigOption<MemorySize> INLINE_THRESHOLD = ConfigOption.key("state.storage.inline-threshold")
            .memoryType()
            .defaultValue(MemorySize.ofKibiBytes(16))
            .validator(ConfigValidator.of(v -> v.bytes() >= 0 && v.bytes() <= MAX_INLINE_THRESHOLD.bytes(),
                    "a memory size between 0 bytes and 1 mb such as '16 kb'"))
            .description("State written for a checkpoint by one operator that is at most this size is kept inside"
                    + " the checkpoint's metadata instead of in a file of its own, so small state costs no file;"
                    + " 0 writes every non-empty piece of state to a file.");

    private StateOptions() {
    }
}
