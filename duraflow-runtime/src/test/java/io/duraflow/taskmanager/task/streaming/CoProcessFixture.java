package io.duraflow.taskmanager.task.streaming;

import io.duraflow.api.JobBuilder;
import io.duraflow.api.dag.Operation;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.config.Configuration;
import io.duraflow.config.RuntimeMode;
import io.duraflow.plan.JobGraph;
import io.duraflow.state.KeyGroupRange;
import io.duraflow.state.OperatorSubtaskState;
import io.duraflow.state.loader.StateBackendLoader;
import io.duraflow.taskmanager.task.Downstream;
import io.duraflow.taskmanager.task.StreamOperator;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** A {@link KeyedCoProcessOperator} over a real backend (heap or RocksDB), a manual clock and a recording downstream. */
final class CoProcessFixture {
    static final StreamOperator.OperatorContext OPERATOR = new StreamOperator.OperatorContext("job", 0, 1, 0);

    private final Path dir;
    final KeyedProcessOperatorTest.ManualTime time = new KeyedProcessOperatorTest.ManualTime();
    final RecordTime recordTime = new RecordTime();
    /** What reached downstream: records with the timestamp they were pushed with, and watermarks. */
    final List<String> seen = new ArrayList<>();
    final Downstream out = new Downstream() {
        @Override
        public void push(Object record) {
            seen.add(record + " pushed@" + recordTime.timestamp);
        }

        @Override
        public void processWatermark(long watermark) {
            seen.add("watermark " + watermark);
        }
    };

    CoProcessFixture(Path dir) {
        this.dir = dir;
    }

    /** The keyed co-process operation of the last vertex of {@code job}, compiled for streaming. */
    static Operation.KeyedCoProcessOp operation(JobBuilder job) {
        JobGraph graph = JobGraph.compile(job.plan(), 1, RuntimeMode.STREAMING);
        return (Operation.KeyedCoProcessOp) graph.vertex(graph.vertices().size() - 1).head().operation();
    }

    @SuppressWarnings("unchecked")
    OperatorStateHolder holder(String backend, Operation.KeyedCoProcessOp op, OperatorSubtaskState restore,
            long restoredFrom) throws Exception {
        return OperatorStateHolder.create(StateBackendLoader.fromConfiguration(Configuration.fromMap(Map.of(
                        "state.backend.type", backend))), "co-uid", "co (uid co-uid) 1/1", restore, restoredFrom,
                new OperatorStateHolder.Keyed((TypeSerializer<Object>) (TypeSerializer<?>) op.keyType(), 128,
                        new KeyGroupRange(0, 127), dir.resolve("local-" + restoredFrom)));
    }

    KeyedCoProcessOperator open(Operation.KeyedCoProcessOp op, OperatorStateHolder holder) throws Exception {
        KeyedCoProcessOperator operator = new KeyedCoProcessOperator(op, out, time, recordTime);
        operator.initializeState(holder.initializationContext());
        operator.open(OPERATOR);
        return operator;
    }

    /** One record of {@code input} at {@code timestamp}, prefetched as the input handler does. */
    void process(KeyedCoProcessOperator operator, int input, Object record, long timestamp) throws Exception {
        recordTime.timestamp = timestamp;
        operator.prefetch(input, new Object[] {record}, 1);
        operator.process(input, record, 8);
    }
}
