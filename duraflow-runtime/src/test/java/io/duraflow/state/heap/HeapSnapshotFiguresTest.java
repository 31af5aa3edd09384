package io.duraflow.state.heap;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.api.state.ValueState;
import io.duraflow.api.state.ValueStateDescriptor;
import io.duraflow.api.types.Tuple2;
import io.duraflow.api.types.Types;
import io.duraflow.config.Configuration;
import io.duraflow.fs.FsPath;
import io.duraflow.state.KeyGroupRange;
import io.duraflow.state.KeyedStateHandle;
import io.duraflow.state.backend.KeyedBackendParameters;
import io.duraflow.state.backend.KeyedStateBackend;
import io.duraflow.state.backend.SnapshotType;
import io.duraflow.state.storage.FsCheckpointStorage;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.RunnableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Prints what a heap snapshot of the benchmark's state costs: 100,000 keys with a {@code
 * Tuple2<Long, Long>} (sum, count) each, 128 key groups, default storage options. Figures, not a
 * timed test: the only assertions are on sizes and contents.
 */
class HeapSnapshotFiguresTest {
    private static final int KEYS = 100_000;

    @TempDir
    Path dir;

    @Test
    void synchronousPartAndSizeFor100kKeys() throws Exception {
        FsCheckpointStorage storage = FsCheckpointStorage.create(FsPath.of(dir), "job", new Configuration());
        KeyedStateBackend<Long> backend = new HeapStateBackend().createKeyedStateBackend(new KeyedBackendParameters<>(
                "sum 1/1", Types.LONG, 128, new KeyGroupRange(0, 127), List.of(), dir.resolve("local")));
        ValueState<Tuple2<Long, Long>> sum = backend.getState(new ValueStateDescriptor<>("sum",
                Types.tuple(Types.LONG, Types.LONG)));
        for (long key = 0; key < KEYS; key++) {
            backend.setCurrentKey(key);
            sum.update(Tuple2.of(key * 7, 1L));
        }

        int rounds = 10;
        long[] plainWritesNanos = new long[rounds];
        for (int round = 0; round < rounds; round++) {
            long start = System.nanoTime();
            for (long key = 0; key < KEYS; key++) {
                backend.setCurrentKey(key);
                Tuple2<Long, Long> value = sum.value();
                sum.update(Tuple2.of(value.f0(), value.f1()));
            }
            plainWritesNanos[round] = System.nanoTime() - start;
        }
        long[] syncNanos = new long[rounds];
        long[] asyncNanos = new long[rounds];
        long[] firstWritesNanos = new long[rounds];
        long size = 0;
        for (int round = 0; round < rounds; round++) {
            long start = System.nanoTime();
            RunnableFuture<List<KeyedStateHandle>> future = backend.snapshot(round + 1, round, storage.streamFactory(
                    round + 1), SnapshotType.CHECKPOINT);
            syncNanos[round] = System.nanoTime() - start;
            // every key changes between checkpoints, as in the benchmark: each key group is copied once
            start = System.nanoTime();
            for (long key = 0; key < KEYS; key++) {
                backend.setCurrentKey(key);
                Tuple2<Long, Long> value = sum.value();
                sum.update(Tuple2.of(value.f0() + 1, value.f1() + 1));
            }
            firstWritesNanos[round] = System.nanoTime() - start;
            Thread thread = new Thread(future, "async-snapshot");
            start = System.nanoTime();
            thread.start();
            List<KeyedStateHandle> handles = future.get();
            asyncNanos[round] = System.nanoTime() - start;
            size = handles.get(0).stateSize();
        }
        Arrays.sort(syncNanos);
        Arrays.sort(asyncNanos);
        Arrays.sort(firstWritesNanos);
        Arrays.sort(plainWritesNanos);
        System.out.printf("heap snapshot of %,d keys (Tuple2<Long,Long>), 128 key groups: synchronous part median"
                + " %.3f ms, max %.3f ms; asynchronous write median %.1f ms; size %,d bytes (%.1f bytes/key);"
                + " updating every key after a snapshot (copy-on-write) median %.1f ms, without a snapshot %.1f ms%n", KEYS,
                syncNanos[rounds / 2] / 1e6, syncNanos[rounds - 1] / 1e6, asyncNanos[rounds / 2] / 1e6, size,
                (double) size / KEYS, firstWritesNanos[rounds / 2] / 1e6, plainWritesNanos[rounds / 2] / 1e6);
        assertThat(size).isBetween(KEYS * 5L, KEYS * 40L);

        backend.setCurrentKey(3L);
        assertThat(sum.value()).isEqualTo(Tuple2.of(21L + rounds, 1L + rounds));
    }
}
