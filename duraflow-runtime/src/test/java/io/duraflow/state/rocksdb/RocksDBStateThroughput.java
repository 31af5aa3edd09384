package io.duraflow.state.rocksdb;

import io.duraflow.api.state.ValueState;
import io.duraflow.api.state.ValueStateDescriptor;
import io.duraflow.api.types.Tuple2;
import io.duraflow.api.types.Types;
import io.duraflow.config.Configuration;
import io.duraflow.fs.FsPath;
import io.duraflow.fs.LocalFileSystem;
import io.duraflow.state.CheckpointDirectories;
import io.duraflow.state.IncrementalKeyedStateHandle;
import io.duraflow.state.KeyGroupRange;
import io.duraflow.state.KeyedStateHandle;
import io.duraflow.state.backend.KeyedBackendParameters;
import io.duraflow.state.backend.KeyedStateBackend;
import io.duraflow.state.backend.SnapshotType;
import io.duraflow.state.storage.FsCheckpointStorage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RunnableFuture;

/**
 * Prints the per-record cost of the keyed-sum state access on the RocksDB backend, without the rest
 * of a job (a benchmark, not a test): one operator instance owning half the key groups (as at
 * parallelism 2), records with key {@code i * 7919 % keys}, per record setCurrentKey + value() +
 * update() of a {@code ValueState<Tuple2<Long, Long>>}, an incremental checkpoint every second
 * (its asynchronous part on another thread, as in a task). Prints records/s and, per checkpoint,
 * the synchronous part's time (wall and the task thread's CPU), files and bytes uploaded. The
 * backend's configuration comes from {@code -Dstate.backend.rocksdb.write-back-cache.size=...}
 * (default: the option's default).
 *
 * <pre>
 *   ./mvnw -q -pl duraflow-runtime -am test-compile
 *   java -cp "$(cat duraflow-runtime/target/test-classpath.txt):duraflow-runtime/target/classes:duraflow-runtime/target/test-classes" \
 *       io.duraflow.state.rocksdb.RocksDBStateThroughput [records] [keys] [checkpoint interval ms, 0: none]
 * </pre>
 */
public final class RocksDBStateThroughput {
    private RocksDBStateThroughput() {
    }

    public static void main(String[] args) throws Exception {
        long records = args.length > 0 ? Long.parseLong(args[0]) : 20_000_000L;
        long keys = args.length > 1 ? Long.parseLong(args[1]) : 100_000L;
        long intervalNanos = (args.length > 2 ? Long.parseLong(args[2]) : 1000L) * 1_000_000L;
        int maxParallelism = 128;
        KeyGroupRange half = KeyGroupRange.ofOperatorIndex(maxParallelism, 2, 0);
        Path dir = Files.createTempDirectory("rocksdb-throughput");
        FsCheckpointStorage storage = new FsCheckpointStorage(LocalFileSystem.INSTANCE,
                CheckpointDirectories.of(FsPath.of(dir.resolve("checkpoints")), "job"), 16 * 1024);
        ExecutorService async = Executors.newSingleThreadExecutor();
        String cacheSize = System.getProperty("state.backend.rocksdb.write-back-cache.size");
        Configuration configuration = cacheSize == null ? new Configuration()
                : Configuration.fromMap(java.util.Map.of("state.backend.rocksdb.write-back-cache.size", cacheSize));
        KeyedStateBackend<Long> backend = new RocksDBStateBackend(configuration).createKeyedStateBackend(
                new KeyedBackendParameters<>("sum 1/2", Types.LONG, maxParallelism, half, List.of(), dir.resolve("local")));
        ValueState<Tuple2<Long, Long>> state = backend.getState(
                new ValueStateDescriptor<>("sum", Types.tuple(Types.LONG, Types.LONG)));
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        List<String> checkpoints = new ArrayList<>();
        long checkpointId = 0;
        Future<?> pending = null;
        long cpuStart = threads.getCurrentThreadCpuTime();
        long start = System.nanoTime();
        long nextCheckpoint = intervalNanos == 0 ? Long.MAX_VALUE : start + intervalNanos;
        long processed = 0;
        for (long i = 0; processed < records; i++) {
            long key = (i % keys) * 7919 % keys;
            if (!half.contains(keyGroup(key, maxParallelism))) {
                continue;
            }
            backend.setCurrentKey(key);
            Tuple2<Long, Long> sum = state.value();
            state.update(sum == null ? Tuple2.of(i, 1L) : Tuple2.of(sum.f0() + i, sum.f1() + 1));
            processed++;
            if ((processed & 1023) == 0 && System.nanoTime() >= nextCheckpoint) {
                nextCheckpoint += intervalNanos;
                if (pending != null) {
                    pending.get();
                }
                long id = ++checkpointId;
                long syncStart = System.nanoTime();
                long syncCpuStart = threads.getCurrentThreadCpuTime();
                RunnableFuture<List<KeyedStateHandle>> future = backend.snapshot(id, id, storage.streamFactory(id),
                        SnapshotType.CHECKPOINT);
                long syncMicros = (System.nanoTime() - syncStart) / 1000;
                long syncCpuMicros = (threads.getCurrentThreadCpuTime() - syncCpuStart) / 1000;
                async.execute(future);
                pending = async.submit(() -> {
                    IncrementalKeyedStateHandle handle = (IncrementalKeyedStateHandle) future.get().get(0);
                    synchronized (checkpoints) {
                        checkpoints.add(String.format("checkpoint %d: sync %d us (%d us CPU), %d files (%d shared, %d reused),"
                                + " %,d bytes uploaded of %,d", id, syncMicros, syncCpuMicros, handle.streams().size(),
                                handle.sharedFiles().size(), handle.reusedFiles(), handle.checkpointedSize(),
                                handle.stateSize()));
                    }
                    return null;
                });
                backend.notifyCheckpointComplete(id - 1);
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        double cpuSeconds = (threads.getCurrentThreadCpuTime() - cpuStart) / 1e9;
        if (pending != null) {
            pending.get();
        }
        checkpoints.forEach(System.out::println);
        System.out.printf("%,d records (state get + put each) in %.2f s: %,.0f records/s on one thread; the"
                + " thread used %.2f s of CPU: %,.0f records per CPU second (what a quiet core would do)%n", processed,
                seconds, processed / seconds, cpuSeconds, processed / cpuSeconds);
        backend.dispose();
        async.shutdown();
    }

    private static int keyGroup(long key, int maxParallelism) {
        io.duraflow.api.types.DataWriter out = new io.duraflow.api.types.DataWriter();
        Types.LONG.write(key, out);
        return io.duraflow.util.Murmur.keyGroup(out.buffer(), 0, out.position(), maxParallelism);
    }
}
