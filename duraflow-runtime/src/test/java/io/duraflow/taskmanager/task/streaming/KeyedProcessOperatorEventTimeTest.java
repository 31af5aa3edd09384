package io.duraflow.taskmanager.task.streaming;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.api.JobBuilder;
import io.duraflow.api.connectors.SequenceSource;
import io.duraflow.api.dag.Operation;
import io.duraflow.api.functions.Collector;
import io.duraflow.api.functions.KeyedProcessFunction;
import io.duraflow.api.functions.TimeDomain;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.api.types.Types;
import io.duraflow.config.Configuration;
import io.duraflow.config.RuntimeMode;
import io.duraflow.fs.FsPath;
import io.duraflow.plan.JobGraph;
import io.duraflow.state.KeyGroupRange;
import io.duraflow.state.OperatorSubtaskState;
import io.duraflow.state.loader.StateBackendLoader;
import io.duraflow.state.storage.FsCheckpointStorage;
import io.duraflow.taskmanager.task.Downstream;
import io.duraflow.taskmanager.task.StreamOperator;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.RunnableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Event-time timers of a keyed process function over a real backend: fired by watermarks in time
 * order before the watermark goes on, each with its time as the timestamp of what it emits, apart
 * from processing-time timers, and carried through a checkpoint.
 */
class KeyedProcessOperatorEventTimeTest {
    private static final StreamOperator.OperatorContext OPERATOR = new StreamOperator.OperatorContext("job", 0, 1, 0);

    /**
     * A record v registers an event-time timer at v for key v % 3 (and a processing-time timer at
     * v too when v >= 1000). Each call to onTimer emits what it saw; the timer at 25 registers one
     * at 24 (below the watermark that fires it) and one at 40.
     */
    static final class TimerEcho extends KeyedProcessFunction<Long, Long, String> {
        @Override
        public void processElement(Long value, Context<Long> context, Collector<String> out) {
            context.timerService().registerEventTimeTimer(value);
            if (value >= 1000) {
                context.timerService().registerProcessingTimeTimer(value);
            }
        }

        @Override
        public void onTimer(long timestamp, Context<Long> context, Collector<String> out) {
            out.collect(context.timeDomain() + " " + context.currentKey() + "@" + timestamp + " ts "
                    + context.timestamp() + " wm " + context.timerService().currentWatermark());
            if (timestamp == 25 && context.timeDomain() == TimeDomain.EVENT_TIME) {
                context.timerService().registerEventTimeTimer(24);
                context.timerService().registerEventTimeTimer(40);
            }
        }
    }

    @TempDir
    Path dir;

    private final KeyedProcessOperatorTest.ManualTime time = new KeyedProcessOperatorTest.ManualTime();
    private final RecordTime recordTime = new RecordTime();
    /** What reached downstream: records with the timestamp they were pushed with, and watermarks. */
    private final List<String> seen = new ArrayList<>();
    private final Downstream out = new Downstream() {
        @Override
        public void push(Object record) {
            seen.add(record + " pushed@" + recordTime.timestamp);
        }

        @Override
        public void processWatermark(long watermark) {
            seen.add("watermark " + watermark);
        }
    };

    private static Operation.KeyedProcessOp operation(KeyedProcessFunction<Long, Long, String> function) {
        JobBuilder job = new JobBuilder("event timers");
        job.fromSource("numbers", new SequenceSource(0, 10, 1)).keyBy(n -> n % 3, Types.LONG)
                .process(function, Types.STRING).collect("out");
        return (Operation.KeyedProcessOp) JobGraph.compile(job.plan(), 1, RuntimeMode.STREAMING).vertex(1).head()
                .operation();
    }

    @SuppressWarnings("unchecked")
    private OperatorStateHolder holder(Operation.KeyedProcessOp op, OperatorSubtaskState restore, long restoredFrom)
            throws Exception {
        return OperatorStateHolder.create(StateBackendLoader.fromConfiguration(Configuration.fromMap(Map.of())),
                "echo-uid", "echo (uid echo-uid) 1/1", restore, restoredFrom,
                new OperatorStateHolder.Keyed((TypeSerializer<Object>) (TypeSerializer<?>) op.keyType(), 128,
                        new KeyGroupRange(0, 127), dir.resolve("local")));
    }

    private KeyedProcessOperator open(Operation.KeyedProcessOp op, OperatorStateHolder holder) throws Exception {
        KeyedProcessOperator operator = new KeyedProcessOperator(op, out, time, recordTime);
        operator.initializeState(holder.initializationContext());
        operator.open(OPERATOR);
        return operator;
    }

    private void process(KeyedProcessOperator operator, long... values) throws Exception {
        for (long value : values) {
            recordTime.timestamp = value;
            operator.process(0, value, 8);
        }
    }

    @Test
    void aWatermarkFiresTheTimersAtOrBelowItInTimeOrderBeforeItGoesOn() throws Exception {
        Operation.KeyedProcessOp op = operation(new TimerEcho());
        try (OperatorStateHolder holder = holder(op, OperatorSubtaskState.EMPTY, -1)) {
            KeyedProcessOperator operator = open(op, holder);
            process(operator, 10, 25, 30, 12, 22, 10);

            operator.processWatermark(9);
            operator.processWatermark(24);
            operator.processWatermark(30);
            operator.processWatermark(Long.MAX_VALUE);
        }

        assertThat(seen).containsExactly(
                "watermark 9",
                "EVENT_TIME 1@10 ts 10 wm 24 pushed@10",
                "EVENT_TIME 0@12 ts 12 wm 24 pushed@12",
                "EVENT_TIME 1@22 ts 22 wm 24 pushed@22",
                "watermark 24",
                "EVENT_TIME 1@25 ts 25 wm 30 pushed@25",
                // registered by the timer at 25, below the watermark: fires in the same call
                "EVENT_TIME 1@24 ts 24 wm 30 pushed@24",
                "EVENT_TIME 0@30 ts 30 wm 30 pushed@30",
                "watermark 30",
                "EVENT_TIME 1@40 ts 40 wm " + Long.MAX_VALUE + " pushed@40",
                "watermark " + Long.MAX_VALUE);
    }

    @Test
    void aProcessingTimeAndAnEventTimeTimerOfTheSameKeyAndTimeFireOnceEachInTheirDomain() throws Exception {
        Operation.KeyedProcessOp op = operation(new TimerEcho());
        try (OperatorStateHolder holder = holder(op, OperatorSubtaskState.EMPTY, -1)) {
            KeyedProcessOperator operator = open(op, holder);
            process(operator, 1_500);

            time.advanceTo(1_500);
            operator.processWatermark(1_499);
            operator.processWatermark(1_500);
            time.advanceTo(2_000);
            operator.processWatermark(2_000);
        }

        assertThat(seen).containsExactly(
                "PROCESSING_TIME 0@1500 ts " + Long.MIN_VALUE + " wm " + Long.MIN_VALUE + " pushed@" + Long.MIN_VALUE,
                "watermark 1499",
                "EVENT_TIME 0@1500 ts 1500 wm 1500 pushed@1500",
                "watermark 1500",
                "watermark 2000");
    }

    @Test
    void theTimeDomainIsOnlyKnownInOnTimer() throws Exception {
        Operation.KeyedProcessOp op = operation(new KeyedProcessFunction<>() {
            @Override
            public void processElement(Long value, Context<Long> context, Collector<String> out) {
                out.collect(String.valueOf(context.timeDomain()));
            }
        });
        try (OperatorStateHolder holder = holder(op, OperatorSubtaskState.EMPTY, -1)) {
            KeyedProcessOperator operator = open(op, holder);

            assertThatThrownBy(() -> process(operator, 1)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("onTimer");
        }
    }

    @Test
    void eventTimersSurviveACheckpointAndFireWithTheRestoredJobsWatermarks() throws Exception {
        FsCheckpointStorage storage = FsCheckpointStorage.create(FsPath.of(dir.resolve("checkpoints")), "job",
                Configuration.fromMap(Map.of("state.storage.inline-threshold", "0 b")));
        Operation.KeyedProcessOp op = operation(new TimerEcho());
        OperatorSubtaskState snapshot;
        try (OperatorStateHolder holder = holder(op, OperatorSubtaskState.EMPTY, -1)) {
            KeyedProcessOperator operator = open(op, holder);
            process(operator, 10, 20, 31);
            operator.processWatermark(10);
            RunnableFuture<OperatorSubtaskState> future = holder.snapshot(7, time.now, storage.streamFactory(7));
            // a timer registered after the synchronous part is not in the checkpoint
            process(operator, 15);
            Thread writer = new Thread(future);
            writer.start();
            writer.join();
            snapshot = future.get();
        }
        seen.clear();

        try (OperatorStateHolder restored = holder(op, snapshot, 7)) {
            KeyedProcessOperator operator = open(op, restored);
            operator.processWatermark(5);
            operator.processWatermark(Long.MAX_VALUE);
        }

        assertThat(seen).containsExactly(
                "watermark 5",
                "EVENT_TIME 2@20 ts 20 wm " + Long.MAX_VALUE + " pushed@20",
                "EVENT_TIME 1@31 ts 31 wm " + Long.MAX_VALUE + " pushed@31",
                "watermark " + Long.MAX_VALUE);
    }
}
