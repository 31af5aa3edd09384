package io.duraflow.taskmanager.task.streaming;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.api.JobBuilder;
import io.duraflow.api.connectors.SequenceSource;
import io.duraflow.api.dag.Operation;
import io.duraflow.api.eventtime.TimestampAssigner;
import io.duraflow.api.functions.Collector;
import io.duraflow.api.functions.KeyedCoProcessFunction;
import io.duraflow.api.functions.KeyedProcessFunction.Context;
import io.duraflow.api.functions.RuntimeContext;
import io.duraflow.api.state.ValueState;
import io.duraflow.api.state.ValueStateDescriptor;
import io.duraflow.api.types.Types;
import io.duraflow.config.Configuration;
import io.duraflow.fs.FsPath;
import io.duraflow.state.OperatorSubtaskState;
import io.duraflow.state.storage.FsCheckpointStorage;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.RunnableFuture;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A keyed co-process function over a real backend, heap and RocksDB: each input keyed by its own
 * selector, both sharing the state and timers of a key, through a checkpoint and a restore.
 */
class KeyedCoProcessOperatorTest {
    /**
     * Left: numbers keyed by n % 3. Right: "k:text" keyed by k. Each record appends to its key's
     * history and emits it; each sets an event-time timer at its timestamp, and a right record
     * also a processing-time timer 100 ms on; a timer emits the history.
     */
    static final class History extends KeyedCoProcessFunction<Long, Long, String, String> {
        private ValueState<String> history;

        @Override
        public void open(RuntimeContext context) {
            history = context.state().getState(new ValueStateDescriptor<>("history", Types.STRING));
        }

        @Override
        public void processElement1(Long value, Context<Long> context, Collector<String> out) {
            append(context, "L" + value, out);
        }

        @Override
        public void processElement2(String value, Context<Long> context, Collector<String> out) {
            append(context, "R" + value, out);
            context.timerService().registerProcessingTimeTimer(context.timerService().currentProcessingTime() + 100);
        }

        private void append(Context<Long> context, String entry, Collector<String> out) {
            String before = history.value();
            history.update(before == null ? entry : before + "," + entry);
            out.collect(context.currentKey() + "=" + history.value());
            context.timerService().registerEventTimeTimer(context.timestamp());
        }

        @Override
        public void onTimer(long timestamp, Context<Long> context, Collector<String> out) {
            out.collect(context.timeDomain() + " " + context.currentKey() + "@" + timestamp + "=" + history.value());
        }
    }

    @TempDir
    Path dir;

    private CoProcessFixture fixture;
    private List<String> seen;
    private KeyedProcessOperatorTest.ManualTime time;

    @BeforeEach
    void setUp() {
        fixture = new CoProcessFixture(dir);
        seen = fixture.seen;
        time = fixture.time;
    }

    private static Operation.KeyedCoProcessOp historyOperation() {
        JobBuilder job = new JobBuilder("co-process");
        job.fromSource("numbers", new SequenceSource(0, 10, 1)).keyBy(n -> n % 3, Types.LONG)
                .connect(job.fromSource("texts", new SequenceSource(0, 10, 1)).map(n -> n + ":t", Types.STRING)
                        .keyBy(text -> Long.parseLong(text.substring(0, text.indexOf(':'))), Types.LONG))
                .process(new History(), Types.STRING).collect("out");
        return CoProcessFixture.operation(job);
    }

    private OperatorStateHolder holder(String backend, Operation.KeyedCoProcessOp op, OperatorSubtaskState restore,
            long restoredFrom) throws Exception {
        return fixture.holder(backend, op, restore, restoredFrom);
    }

    private KeyedCoProcessOperator open(Operation.KeyedCoProcessOp op, OperatorStateHolder holder) throws Exception {
        return fixture.open(op, holder);
    }

    private void process(KeyedCoProcessOperator operator, int input, Object record, long timestamp) throws Exception {
        fixture.process(operator, input, record, timestamp);
    }

    @ParameterizedTest
    @ValueSource(strings = {"heap", "rocksdb"})
    void bothInputsShareTheStateAndTimersOfTheirKey(String backend) throws Exception {
        Operation.KeyedCoProcessOp op = historyOperation();
        try (OperatorStateHolder holder = holder(backend, op, OperatorSubtaskState.EMPTY, -1)) {
            KeyedCoProcessOperator operator = open(op, holder);
            process(operator, 0, 4L, 10);
            process(operator, 1, "1:a", 20);
            time.advanceTo(1_050);
            process(operator, 1, "2:b", 5);
            process(operator, 0, 5L, 30);
            operator.processWatermark(20);
            time.advanceTo(1_200);
            operator.processWatermark(Long.MAX_VALUE);
        }

        assertThat(seen).containsExactly(
                "1=L4 pushed@10",
                "1=L4,R1:a pushed@20",
                "2=R2:b pushed@5",
                "2=R2:b,L5 pushed@30",
                "EVENT_TIME 2@5=R2:b,L5 pushed@5",
                "EVENT_TIME 1@10=L4,R1:a pushed@10",
                "EVENT_TIME 1@20=L4,R1:a pushed@20",
                "watermark 20",
                "PROCESSING_TIME 1@1100=L4,R1:a pushed@" + TimestampAssigner.NO_TIMESTAMP,
                "PROCESSING_TIME 2@1150=R2:b,L5 pushed@" + TimestampAssigner.NO_TIMESTAMP,
                "EVENT_TIME 2@30=R2:b,L5 pushed@30",
                "watermark " + Long.MAX_VALUE);
    }

    @ParameterizedTest
    @ValueSource(strings = {"heap", "rocksdb"})
    void stateAndTimersOfBothInputsSurviveACheckpoint(String backend) throws Exception {
        FsCheckpointStorage storage = FsCheckpointStorage.create(FsPath.of(dir.resolve("checkpoints")), "job",
                Configuration.fromMap(Map.of("state.storage.inline-threshold", "0 b")));
        Operation.KeyedCoProcessOp op = historyOperation();
        OperatorSubtaskState snapshot;
        try (OperatorStateHolder holder = holder(backend, op, OperatorSubtaskState.EMPTY, -1)) {
            KeyedCoProcessOperator operator = open(op, holder);
            process(operator, 0, 4L, 10);
            process(operator, 1, "1:a", 20);
            RunnableFuture<OperatorSubtaskState> future = holder.snapshot(3, time.now, storage.streamFactory(3));
            process(operator, 1, "1:lost", 25); // after the synchronous part: not in the checkpoint
            Thread writer = new Thread(future);
            writer.start();
            writer.join();
            snapshot = future.get();
        }
        seen.clear();
        time.wakeUps.clear();

        try (OperatorStateHolder restored = holder(backend, op, snapshot, 3)) {
            KeyedCoProcessOperator operator = open(op, restored);
            process(operator, 0, 7L, 15);
            operator.processWatermark(Long.MAX_VALUE);
        }

        assertThat(seen).containsExactly(
                "1=L4,R1:a,L7 pushed@15",
                "EVENT_TIME 1@10=L4,R1:a,L7 pushed@10",
                "EVENT_TIME 1@15=L4,R1:a,L7 pushed@15",
                "EVENT_TIME 1@20=L4,R1:a,L7 pushed@20",
                "watermark " + Long.MAX_VALUE);
        assertThat(time.wakeUps).as("the restored processing-time timer is scheduled").isNotEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"heap"})
    void anInputIndexOtherThanZeroOrOneIsRefused(String backend) throws Exception {
        Operation.KeyedCoProcessOp op = historyOperation();
        try (OperatorStateHolder holder = holder(backend, op, OperatorSubtaskState.EMPTY, -1)) {
            KeyedCoProcessOperator operator = open(op, holder);
            assertThatThrownBy(() -> operator.process(2, 1L, 8)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("inputs 0 and 1, not 2");
        }
    }
}
