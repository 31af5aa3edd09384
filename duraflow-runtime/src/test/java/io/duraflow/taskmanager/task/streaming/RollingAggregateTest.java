package io.duraflow.taskmanager.task.streaming;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.api.JobBuilder;
import io.duraflow.api.connectors.SequenceSource;
import io.duraflow.api.dag.Operation;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.api.types.Types;
import io.duraflow.config.Configuration;
import io.duraflow.config.RuntimeMode;
import io.duraflow.fs.FsPath;
import io.duraflow.plan.JobGraph;
import io.duraflow.plan.JobVertex;
import io.duraflow.state.KeyGroupRange;
import io.duraflow.state.OperatorSubtaskState;
import io.duraflow.state.loader.StateBackendLoader;
import io.duraflow.state.storage.FsCheckpointStorage;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.RunnableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import io.duraflow.taskmanager.task.StreamOperator;

/** A keyed reduce in streaming mode: a rolling aggregate that emits each key's updated result per record. */
class RollingAggregateTest {
    private static final StreamOperator.OperatorContext OPERATOR = new StreamOperator.OperatorContext("job", 0, 1, 0);

    @TempDir
    Path dir;

    private final List<Object> emitted = new ArrayList<>();

    private static Operation.KeyedAggregateOp operation() {
        JobBuilder job = new JobBuilder("rolling");
        job.fromSource("numbers", new SequenceSource(0, 10, 1)).keyBy(n -> n % 3, Types.LONG)
                .reduce(Long::sum).collect("out");
        JobGraph graph = JobGraph.compile(job.plan(), 1, RuntimeMode.STREAMING);
        JobVertex keyed = graph.vertices().stream().filter(v -> !v.isSource()).findFirst().orElseThrow();
        return (Operation.KeyedAggregateOp) keyed.head().operation();
    }

    private OperatorStateHolder holder(OperatorSubtaskState restore, long restoredFrom) throws Exception {
        return OperatorStateHolder.create(StateBackendLoader.fromConfiguration(Configuration.fromMap(Map.of())),
                "reduce-uid", "reduce (uid reduce-uid) 1/1", restore, restoredFrom,
                new OperatorStateHolder.Keyed(operation().keyType(), 128, new KeyGroupRange(0, 127), dir));
    }

    private StreamOperators.RollingAggregate open(OperatorStateHolder holder) throws Exception {
        Operation.KeyedAggregateOp op = operation();
        var operator = new StreamOperators.RollingAggregate(op.keySelector(), op.aggregation(), op.accumulatorType(),
                emitted::add);
        operator.initializeState(holder.initializationContext());
        operator.open(OPERATOR);
        return operator;
    }

    @Test
    void everyRecordEmitsItsKeysUpdatedResultAndTheAccumulatorsSurviveARestore() throws Exception {
        FsCheckpointStorage storage = FsCheckpointStorage.create(FsPath.of(dir.resolve("checkpoints")), "job",
                Configuration.fromMap(Map.of("state.storage.inline-threshold", "0 b")));
        OperatorSubtaskState snapshot;
        try (OperatorStateHolder holder = holder(OperatorSubtaskState.EMPTY, -1)) {
            var operator = open(holder);
            for (long i = 0; i < 6; i++) {
                operator.process(0, i, 8);
            }
            assertThat(emitted).containsExactly(0L, 1L, 2L, 3L, 5L, 7L);
            RunnableFuture<OperatorSubtaskState> future = holder.snapshot(1, 0, storage.streamFactory(1));
            operator.process(0, 100L, 8); // after the synchronous part: not in the checkpoint
            future.run();
            snapshot = future.get();
        }
        assertThat(snapshot.keyedState()).isNotEmpty();
        emitted.clear();
        try (OperatorStateHolder restored = holder(snapshot, 1)) {
            var operator = open(restored);
            operator.process(0, 6L, 8);
            operator.process(0, 7L, 8);
            operator.process(0, 8L, 8);
        }
        assertThat(emitted).containsExactly(9L, 12L, 15L);
    }
}
