package io.duraflow.state.backend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.duraflow.api.state.MapStateDescriptor;
import io.duraflow.api.state.ValueStateDescriptor;
import io.duraflow.api.types.Tuple2;
import io.duraflow.api.types.Types;
import io.duraflow.state.FileSegmentHandle;
import io.duraflow.state.KeyedStateHandle;
import io.duraflow.state.storage.CheckpointOutputStream;
import io.duraflow.state.storage.CheckpointStreamFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.RunnableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Part of the keyed backend contract ({@link KeyedStateBackendContractTest}): snapshots and
 * restore of keyed state: exact restore, isolation from writes after the synchronous part, the
 * asynchronous part off the task thread, cancellation and interruption, states restored under
 * another declaration or not declared again, and a missing file. (Timers through snapshots: {@link
 * KeyedStateTimersContract}; key groups moving between subtasks: {@link KeyedStateRescalingContract}.)
 */
public interface KeyedStateSnapshotContract extends KeyedStateBackendFixture {
    @Test
    default void anEmptyBackendSnapshotsToNothing() throws Exception {
        assertThat(snapshot(backend())).isEmpty();
    }

    @Test
    default void manyKeysOfEveryStateTypeAreRestoredExactly() throws Exception {
        KeyedStateBackend<Long> backend = backend();
        for (long key = 0; key < 20_000; key++) {
            fill(backend, key);
        }
        for (long key = 0; key < 20_000; key += 3) {
            backend.setCurrentKey(key);
            backend.getState(SUM).clear();
            backend.getMapState(COUNTS).clear();
        }

        List<KeyedStateHandle> handles = snapshot(backend);
        KeyedStateBackend<Long> restored = restored(ALL, handles);

        assertThat(restored.stateNames()).containsExactly("counts", "events", "sum");
        for (long key = 0; key < 20_000; key++) {
            assertThat(dump(restored, key)).isEqualTo(dump(backend, key));
        }
        assertThat(handles).allSatisfy(h -> assertThat(h.keyGroupRange()).isEqualTo(ALL));
    }

    @Test
    default void aSnapshotIsNotAffectedByWritesAfterItsSynchronousPart() throws Exception {
        KeyedStateBackend<Long> backend = backend();
        for (long key = 0; key < 1000; key++) {
            fill(backend, key);
        }
        Map<Long, String> before = new HashMap<>();
        for (long key = 0; key < 1000; key++) {
            before.put(key, dump(backend, key));
        }

        RunnableFuture<List<KeyedStateHandle>> future = backend.snapshot(1, 1, streamFactory(1),
                SnapshotType.CHECKPOINT);
        for (long key = 0; key < 1000; key++) {
            backend.setCurrentKey(key);
            if (key % 2 == 0) {
                backend.getState(SUM).update(Tuple2.of(-1L, -1L));
                backend.getListState(EVENTS).add("after");
                backend.getMapState(COUNTS).put("after", 1L);
            } else {
                backend.getState(SUM).clear();
                backend.getListState(EVENTS).clear();
                backend.getMapState(COUNTS).remove("k" + (key % 7));
            }
        }
        backend.setCurrentKey(5000L);
        backend.getState(SUM).update(Tuple2.of(5000L, 0L));
        asyncThread().execute(future);
        KeyedStateBackend<Long> restored = restored(ALL, future.get(60, TimeUnit.SECONDS));

        for (long key = 0; key < 1000; key++) {
            assertThat(dump(restored, key)).isEqualTo(before.get(key));
        }
        assertThat(dump(restored, 5000L)).isEqualTo("null [] {}");
        assertThat(dump(backend, 0L)).contains("after");
    }

    @Test
    default void theAsynchronousPartWritesOffTheTaskThread() throws Exception {
        KeyedStateBackend<Long> backend = backend();
        fill(backend, 1L);
        List<String> writers = new ArrayList<>();
        CheckpointStreamFactory real = streamFactory(1);
        CheckpointStreamFactory recording = scope -> {
            synchronized (writers) {
                writers.add(Thread.currentThread().getName());
            }
            return real.createCheckpointOutputStream(scope);
        };

        RunnableFuture<List<KeyedStateHandle>> future = backend.snapshot(1, 1, recording, SnapshotType.CHECKPOINT);
        assertThat(writers).as("the synchronous part writes nothing").isEmpty();
        asyncThread().execute(future);
        assertThat(future.get(60, TimeUnit.SECONDS)).hasSize(1);

        // the thread that runs the future, or a pool it hands the writes to; never the task's thread
        assertThat(writers).isNotEmpty().doesNotContain(Thread.currentThread().getName());
    }

    @Test
    default void aSnapshotCancelledBeforeItRanWritesNothing() throws Exception {
        KeyedStateBackend<Long> backend = backend();
        fill(backend, 1L);

        RunnableFuture<List<KeyedStateHandle>> future = backend.snapshot(1, 1, streamFactory(1),
                SnapshotType.CHECKPOINT);
        future.cancel(true);
        future.run();

        assertThat(Files.exists(tempDir().resolve("checkpoints"))).isFalse();
    }

    @Test
    default void anInterruptedAsynchronousPartFailsAndDeletesWhatItWrote() throws Exception {
        KeyedStateBackend<Long> backend = backend();
        for (long key = 0; key < 20_000; key++) {
            fill(backend, key);
        }
        CheckpointStreamFactory real = streamFactory(1);
        java.util.concurrent.atomic.AtomicBoolean interrupted = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.atomic.AtomicLong filesWhenInterrupted = new java.util.concurrent.atomic.AtomicLong(-1);
        java.util.concurrent.atomic.AtomicLong written = new java.util.concurrent.atomic.AtomicLong();
        CheckpointStreamFactory interrupting = scope -> new DelegatingStream(real.createCheckpointOutputStream(scope)) {
            @Override
            public void write(byte[] bytes, int offset, int length) throws IOException {
                super.write(bytes, offset, length);
                // late enough that a stream is a file by now (unless this backend inlines it); bytes are
                // counted over all streams, as a backend may write several (one per file)
                if (written.addAndGet(length) > 100_000 && (inlineThresholdBytes() > 0 || countFiles() > 0)
                        && !interrupted.getAndSet(true)) {
                    filesWhenInterrupted.set(countFiles());
                    Thread.currentThread().interrupt();
                }
            }
        };

        RunnableFuture<List<KeyedStateHandle>> future = backend.snapshot(1, 1, interrupting, SnapshotType.CHECKPOINT);
        asyncThread().execute(future);

        assertThatThrownBy(() -> future.get(60, TimeUnit.SECONDS))
                .isInstanceOf(java.util.concurrent.ExecutionException.class);
        assertThat(interrupted).isTrue();
        if (inlineThresholdBytes() == 0) {
            assertThat(filesWhenInterrupted.get()).as("files written before the interruption").isPositive();
        }
        assertThat(countFiles()).isZero();
    }

    private long countFiles() throws IOException {
        Path checkpoints = tempDir().resolve("checkpoints");
        if (!Files.exists(checkpoints)) {
            return 0;
        }
        try (var files = Files.walk(checkpoints)) {
            return files.filter(Files::isRegularFile).count();
        }
    }

    /** Passes everything to another stream; tests override what they watch. */
    class DelegatingStream extends CheckpointOutputStream {
        private final CheckpointOutputStream delegate;

        protected DelegatingStream(CheckpointOutputStream delegate) {
            this.delegate = delegate;
        }

        @Override
        public void write(int b) throws IOException {
            delegate.write(b);
        }

        @Override
        public void write(byte[] bytes, int offset, int length) throws IOException {
            delegate.write(bytes, offset, length);
        }

        @Override
        public long position() throws IOException {
            return delegate.position();
        }

        @Override
        public io.duraflow.state.StreamStateHandle closeAndGetHandle() throws IOException {
            return delegate.closeAndGetHandle();
        }

        @Override
        public void abort() {
            delegate.abort();
        }
    }

    @Test
    default void aStateRestoredUnderAnotherDeclarationIsAnErrorNamingIt() throws Exception {
        KeyedStateBackend<Long> backend = backend();
        fill(backend, 1L);
        List<KeyedStateHandle> handles = snapshot(backend);
        KeyedStateBackend<Long> restored = restored(ALL, handles);

        assertThatThrownBy(() -> restored.getState(new ValueStateDescriptor<>("sum", Types.LONG)))
                .isInstanceOf(IncompatibleStateException.class).hasMessageContaining("'sum'")
                .hasMessageContaining("restored as value(tuple2(long,long))")
                .hasMessageContaining("value(long)");
        assertThatThrownBy(() -> restored.getMapState(new MapStateDescriptor<>("events", Types.STRING, Types.STRING)))
                .isInstanceOf(IncompatibleStateException.class).hasMessageContaining("'events'");
        assertThatThrownBy(() -> backend(Types.STRING, ALL, handles)).isInstanceOf(IncompatibleStateException.class)
                .hasMessageContaining("long").hasMessageContaining("string");
    }

    @Test
    default void stateRestoredButNotDeclaredIsKeptInLaterSnapshots() throws Exception {
        KeyedStateBackend<Long> backend = backend();
        for (long key = 0; key < 100; key++) {
            fill(backend, key);
        }
        KeyedStateBackend<Long> second = restored(ALL, snapshot(backend));
        second.setCurrentKey(1L);
        second.getState(SUM).update(Tuple2.of(7L, 7L));
        assertThat(second.stateNames()).containsExactly("counts", "events", "sum");

        KeyedStateBackend<Long> third = restored(ALL, snapshot(second));

        for (long key = 0; key < 100; key++) {
            String expected = key == 1 ? Tuple2.of(7L, 7L) + " [a1, b1] {k1=1}" : dump(backend, key);
            assertThat(dump(third, key)).isEqualTo(expected);
        }
    }

    @Test
    default void aMissingStateFileIsAnErrorNamingTheFile() throws Exception {
        KeyedStateBackend<Long> backend = backend();
        fill(backend, 1L);
        List<KeyedStateHandle> handles = snapshot(backend);
        FileSegmentHandle file = (FileSegmentHandle) handles.get(0).streams().stream()
                .filter(FileSegmentHandle.class::isInstance).findFirst().orElse(null);
        assumeTrue(file != null, "the snapshot has a file");
        Files.delete(file.file().toLocalPath());

        assertThatThrownBy(() -> restored(ALL, handles)).isInstanceOf(IOException.class)
                .hasMessageContaining(file.file().toString());
    }
}
