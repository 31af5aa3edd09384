package io.duraflow.state.rocksdb;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.rocksdb.Cache;
import org.rocksdb.LRUCache;
import org.rocksdb.RocksDB;
import org.rocksdb.WriteBufferManager;

/**
 * The native memory and threads that all RocksDB backends of one TaskManager process share, so
 * that memory stays bounded however many operator instances run: one block cache of {@code
 * memory.size} bytes to which a {@link WriteBufferManager} charges every memtable (write buffers may
 * take {@code write-buffer-ratio} of it before RocksDB flushes them), and one pool of upload threads.
 *
 * <p>Rules:
 * <ol>
 *   <li>Resources are shared per distinct configuration ({@link Settings}); a TaskManager runs jobs
 *       of one cluster configuration, so in practice there is one set per process.</li>
 *   <li>Each backend {@linkplain #acquire acquires} them when it opens its database and {@linkplain
 *       #release releases} them after closing it; the last release frees the native memory.</li>
 *   <li>The upload pool has daemon threads and lives as long as the process: it is idle when no
 *       snapshot is written, and tasks of several jobs use it in turn.</li>
 * </ol>
 */
final class RocksDBResources {
    /** What the shared resources are made from. */
    record Settings(long memoryBytes, double writeBufferRatio, int uploadThreads) {
    }

    private static final Map<Settings, RocksDBResources> SHARED = new HashMap<>();
    private static final Map<Integer, ExecutorService> UPLOAD_POOLS = new HashMap<>();

    static {
        RocksDB.loadLibrary();
    }

    private final Settings settings;
    private final Cache cache;
    private final WriteBufferManager writeBufferManager;
    private final ExecutorService uploads;
    private int users;

    private RocksDBResources(Settings settings, ExecutorService uploads) {
        this.settings = settings;
        this.cache = new LRUCache(settings.memoryBytes());
        this.writeBufferManager = new WriteBufferManager((long) (settings.memoryBytes() * settings.writeBufferRatio()),
                cache);
        this.uploads = uploads;
    }

    static synchronized RocksDBResources acquire(Settings settings) {
        RocksDBResources resources = SHARED.get(settings);
        if (resources == null) {
            ExecutorService pool = UPLOAD_POOLS.computeIfAbsent(settings.uploadThreads(), RocksDBResources::uploadPool);
            resources = new RocksDBResources(settings, pool);
            SHARED.put(settings, resources);
        }
        resources.users++;
        return resources;
    }

    static synchronized void release(RocksDBResources resources) {
        if (--resources.users == 0) {
            SHARED.remove(resources.settings);
            resources.writeBufferManager.close();
            resources.cache.close();
        }
    }

    private static ExecutorService uploadPool(int threads) {
        AtomicInteger count = new AtomicInteger();
        return Executors.newFixedThreadPool(threads, runnable -> {
            Thread thread = new Thread(runnable, "rocksdb-upload-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
    }

    Cache cache() {
        return cache;
    }

    WriteBufferManager writeBufferManager() {
        return writeBufferManager;
    }

    /** Where file uploads and downloads run. */
    ExecutorService transfers() {
        return uploads;
    }

    Settings settings() {
        return settings;
    }
}
