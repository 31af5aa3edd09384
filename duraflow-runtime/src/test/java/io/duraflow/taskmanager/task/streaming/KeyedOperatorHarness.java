package io.duraflow.taskmanager.task.streaming;

import io.duraflow.api.dag.Operation;
import io.duraflow.api.functions.KeyedProcessFunction;
import io.duraflow.api.functions.KeySelector;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.fs.FsPath;
import io.duraflow.fs.LocalFileSystem;
import io.duraflow.state.CheckpointDirectories;
import io.duraflow.state.KeyGroupRange;
import io.duraflow.state.KeyedStateHandle;
import io.duraflow.state.backend.KeyedBackendParameters;
import io.duraflow.state.backend.KeyedStateBackend;
import io.duraflow.state.backend.SnapshotType;
import io.duraflow.state.backend.StateBackend;
import io.duraflow.state.storage.FsCheckpointStorage;
import io.duraflow.taskmanager.task.Downstream;
import io.duraflow.taskmanager.task.MailboxProcessor;
import io.duraflow.taskmanager.task.StreamOperator;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.RunnableFuture;

/**
 * Runs a keyed process function in the real {@link KeyedProcessOperator} on a real state backend,
 * one subtask, on the test's thread: records with timestamps, watermarks and a manual processing
 * clock go in; what it emits (with timestamps) comes out; snapshots are taken through the backend
 * and a new harness restores from them, also with another key group range (a rescale).
 */
final class KeyedOperatorHarness<K> implements AutoCloseable {
    static final int MAX_PARALLELISM = 128;

    /** A record the operator emitted, with the timestamp it carried. */
    record Emitted(Object record, long timestamp) {}

    private final KeyedStateBackend<Object> backend;
    private final KeyedProcessOperator operator;
    private final RecordTime recordTime;
    private final FsCheckpointStorage storage;
    private final PriorityQueue<WakeUp> wakeUps = new PriorityQueue<>();
    private final List<Emitted> output = new ArrayList<>();
    /** What went to the side output {@link #LATE} (a test's late records), with timestamps. */
    private final List<Emitted> late = new ArrayList<>();
    /** The one side output id the harness reads. */
    static final String LATE = "late";
    private final List<Long> watermarks = new ArrayList<>();
    private long now;
    private long wakeUpSequence;
    private long nextCheckpointId;

    private record WakeUp(long time, long sequence, MailboxProcessor.Mail action) implements Comparable<WakeUp> {
        @Override
        public int compareTo(WakeUp other) {
            return time != other.time ? Long.compare(time, other.time) : Long.compare(sequence, other.sequence);
        }
    }

    @SuppressWarnings("unchecked")
    KeyedOperatorHarness(StateBackend kind, Path directory, KeySelector<?, K> keySelector, TypeSerializer<K> keyType,
            KeyedProcessFunction<K, ?, ?> function, KeyGroupRange range, List<KeyedStateHandle> restore,
            long restoredCheckpointId, long startTime) throws Exception {
        this.now = startTime;
        this.nextCheckpointId = restoredCheckpointId + 1;
        this.recordTime = new RecordTime();
        this.storage = new FsCheckpointStorage(LocalFileSystem.INSTANCE,
                CheckpointDirectories.of(FsPath.of(directory.resolve("checkpoints")), "job"), 64 * 1024);
        this.backend = (KeyedStateBackend<Object>) (KeyedStateBackend<?>) kind.createKeyedStateBackend(
                new KeyedBackendParameters<>("harness", keyType, MAX_PARALLELISM, range, restore,
                        directory.resolve("local-" + System.nanoTime())));
        Operation.KeyedProcessOp op = new Operation.KeyedProcessOp((KeySelector<Object, Object>) keySelector,
                (TypeSerializer<Object>) keyType, (KeyedProcessFunction<Object, Object, Object>) function);
        ProcessingTimeService time = new ProcessingTimeService() {
            @Override
            public long currentTimeMs() {
                return now;
            }

            @Override
            public void wakeUpAt(long timeMs, MailboxProcessor.Mail action) {
                wakeUps.add(new WakeUp(timeMs, wakeUpSequence++, action));
            }
        };
        Downstream out = new Downstream() {
            @Override
            public void push(Object record) {
                output.add(new Emitted(record, recordTime.timestamp));
            }

            @Override
            public void processWatermark(long watermark) {
                watermarks.add(watermark);
            }
        };
        Downstream lateOut = record -> late.add(new Emitted(record, recordTime.timestamp));
        this.operator = new KeyedProcessOperator(op, out,
                io.duraflow.taskmanager.task.SideOutputs.of(java.util.Map.of(LATE, List.of(lateOut))), time, recordTime);
        operator.initializeState(new StreamOperator.StateInitializationContext(restoredCheckpointId, null, backend));
        operator.open(new StreamOperator.OperatorContext("job", 0, 1, 0));
    }

    void processElement(Object record, long timestamp) throws Exception {
        recordTime.timestamp = timestamp;
        operator.process(0, record, 0);
    }

    void processWatermark(long watermark) throws Exception {
        operator.processWatermark(watermark);
    }

    /** Moves the clock to {@code time} and runs the wake-ups due by then, in time order. */
    void setProcessingTime(long time) throws Exception {
        now = time;
        while (!wakeUps.isEmpty() && wakeUps.peek().time() <= now) {
            wakeUps.poll().action().run();
        }
    }

    long processingTime() {
        return now;
    }

    /** Both parts of a checkpoint's snapshot, and its completion. */
    List<KeyedStateHandle> snapshot() throws Exception {
        long id = nextCheckpointId++;
        RunnableFuture<List<KeyedStateHandle>> future = backend.snapshot(id, id, storage.streamFactory(id),
                SnapshotType.CHECKPOINT);
        future.run();
        List<KeyedStateHandle> handles = future.get();
        backend.notifyCheckpointComplete(id);
        return handles;
    }

    long lastCheckpointId() {
        return nextCheckpointId - 1;
    }

    List<Emitted> output() {
        return output;
    }

    /** What went to the side output {@value #LATE} since the last call. */
    List<Emitted> drainLate() {
        List<Emitted> drained = List.copyOf(late);
        late.clear();
        return drained;
    }

    /** What was emitted since the last call. */
    List<Emitted> drainOutput() {
        List<Emitted> drained = List.copyOf(output);
        output.clear();
        return drained;
    }

    List<Long> watermarks() {
        return watermarks;
    }

    /** Whether the key belongs to {@code range}, for routing records between rescaled harnesses. */
    static boolean owns(KeyGroupRange range, long key) {
        return range.contains(io.duraflow.util.Murmur.keyGroupOfLong(key, MAX_PARALLELISM));
    }

    @Override
    public void close() throws Exception {
        try {
            operator.close();
        } finally {
            backend.dispose();
        }
    }
}
