package io.duraflow.taskmanager.task.streaming;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.api.JobBuilder;
import io.duraflow.api.connectors.SequenceSource;
import io.duraflow.api.dag.Operation;
import io.duraflow.api.functions.Collector;
import io.duraflow.api.functions.KeyedProcessFunction;
import io.duraflow.api.functions.RuntimeContext;
import io.duraflow.api.state.ValueState;
import io.duraflow.api.state.ValueStateDescriptor;
import io.duraflow.api.types.Tuple2;
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
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.RunnableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import io.duraflow.taskmanager.task.MailboxProcessor;
import io.duraflow.taskmanager.task.StreamOperator;

/**
 * A keyed process function over a real heap backend: state per key, processing-time timers fired
 * as mails, and both carried through a checkpoint into a restored operator.
 */
class KeyedProcessOperatorTest {
    private static final StreamOperator.OperatorContext OPERATOR = new StreamOperator.OperatorContext("job", 0, 1, 0);

    /** Sums values per key; 100 ms after a key's first record, emits (key, sum). */
    static final class SumThenReport extends KeyedProcessFunction<Long, Long, Tuple2<Long, Long>> {
        private ValueState<Long> sum;

        @Override
        public void open(RuntimeContext context) {
            sum = context.state().getState(new ValueStateDescriptor<>("sum", Types.LONG));
        }

        @Override
        public void processElement(Long value, Context<Long> context, Collector<Tuple2<Long, Long>> out) {
            Long before = sum.value();
            if (before == null) {
                context.timerService().registerProcessingTimeTimer(context.timerService().currentProcessingTime() + 100);
            }
            sum.update((before == null ? 0 : before) + value);
        }

        @Override
        public void onTimer(long timestamp, Context<Long> context, Collector<Tuple2<Long, Long>> out) {
            out.collect(Tuple2.of(context.currentKey(), sum.value()));
        }
    }

    /** A clock the test moves; wake-ups run as the time passes them, like mails on the task thread. */
    static final class ManualTime implements ProcessingTimeService {
        long now = 1_000;
        final TreeMap<Long, List<MailboxProcessor.Mail>> wakeUps = new TreeMap<>();

        @Override
        public long currentTimeMs() {
            return now;
        }

        @Override
        public void wakeUpAt(long timeMs, MailboxProcessor.Mail action) {
            wakeUps.computeIfAbsent(timeMs, t -> new ArrayList<>()).add(action);
        }

        void advanceTo(long time) throws Exception {
            now = time;
            while (!wakeUps.isEmpty() && wakeUps.firstKey() <= now) {
                for (MailboxProcessor.Mail mail : wakeUps.pollFirstEntry().getValue()) {
                    mail.run();
                }
            }
        }
    }

    @TempDir
    Path dir;

    private final ManualTime time = new ManualTime();
    private final List<Object> emitted = new ArrayList<>();
    private final RecordTime recordTime = new RecordTime();

    @SuppressWarnings("unchecked")
    private static Operation.KeyedProcessOp operation() {
        JobBuilder job = new JobBuilder("keyed");
        job.fromSource("numbers", new SequenceSource(0, 10, 1)).keyBy(n -> n % 3, Types.LONG)
                .process(new SumThenReport(), Types.tuple(Types.LONG, Types.LONG)).collect("out");
        JobGraph graph = JobGraph.compile(job.plan(), 1, RuntimeMode.STREAMING);
        return (Operation.KeyedProcessOp) graph.vertex(1).head().operation();
    }

    private OperatorStateHolder holder(OperatorSubtaskState restore, long restoredFrom) throws Exception {
        Operation.KeyedProcessOp op = operation();
        return OperatorStateHolder.create(StateBackendLoader.fromConfiguration(Configuration.fromMap(Map.of())),
                "sum-uid", "sum (uid sum-uid) 1/1", restore, restoredFrom,
                new OperatorStateHolder.Keyed((TypeSerializer<Object>) (TypeSerializer<?>) op.keyType(), 128,
                        new KeyGroupRange(0, 127), dir));
    }

    private KeyedProcessOperator open(OperatorStateHolder holder) throws Exception {
        KeyedProcessOperator operator = new KeyedProcessOperator(operation(), emitted::add, time, recordTime);
        operator.initializeState(holder.initializationContext());
        operator.open(OPERATOR);
        return operator;
    }

    /** Emits, per record, its timestamp and the operator's watermark as the function sees them. */
    static final class ShowEventTime extends KeyedProcessFunction<Long, Long, Tuple2<Long, Long>> {
        @Override
        public void processElement(Long value, Context<Long> context, Collector<Tuple2<Long, Long>> out) {
            out.collect(Tuple2.of(context.timestamp(), context.timerService().currentWatermark()));
        }
    }

    @Test
    void theFunctionSeesItsRecordsTimestampAndTheOperatorsWatermark() throws Exception {
        List<Object> seen = new ArrayList<>();
        io.duraflow.taskmanager.task.Downstream out = new io.duraflow.taskmanager.task.Downstream() {
            @Override
            public void push(Object record) {
                seen.add(record);
            }

            @Override
            public void processWatermark(long watermark) {
                seen.add("wm " + watermark);
            }
        };
        JobBuilder job = new JobBuilder("event time");
        job.fromSource("numbers", new SequenceSource(0, 10, 1)).keyBy(n -> n % 3, Types.LONG)
                .process(new ShowEventTime(), Types.tuple(Types.LONG, Types.LONG)).collect("out");
        Operation.KeyedProcessOp op = (Operation.KeyedProcessOp) JobGraph.compile(job.plan(), 1, RuntimeMode.STREAMING)
                .vertex(1).head().operation();
        try (OperatorStateHolder holder = holder(OperatorSubtaskState.EMPTY, -1)) {
            KeyedProcessOperator operator = new KeyedProcessOperator(op, out, time, recordTime);
            operator.initializeState(holder.initializationContext());
            operator.open(OPERATOR);
            recordTime.timestamp = 500;
            operator.process(0, 1L, 8);
            operator.processWatermark(450);
            recordTime.timestamp = 700;
            operator.process(0, 2L, 8);
        }
        assertThat(seen).containsExactly(Tuple2.of(500L, Long.MIN_VALUE), "wm 450", Tuple2.of(700L, 450L));
    }

    @Test
    void stateIsPerKeyAndATimerFiresOnceItsTimeComes() throws Exception {
        try (OperatorStateHolder holder = holder(OperatorSubtaskState.EMPTY, -1)) {
            KeyedProcessOperator operator = open(holder);
            for (long i = 0; i < 9; i++) {
                operator.process(0, i, 8);
            }
            time.advanceTo(1_099);
            assertThat(emitted).isEmpty();
            time.advanceTo(1_100);
            assertThat(emitted).containsExactlyInAnyOrder(Tuple2.of(0L, 9L), Tuple2.of(1L, 12L), Tuple2.of(2L, 15L));
        }
    }

    @Test
    void stateAndPendingTimersSurviveACheckpointIntoARestoredOperator() throws Exception {
        FsCheckpointStorage storage = FsCheckpointStorage.create(FsPath.of(dir.resolve("checkpoints")), "job",
                Configuration.fromMap(Map.of("state.storage.inline-threshold", "0 b")));
        OperatorSubtaskState snapshot;
        try (OperatorStateHolder holder = holder(OperatorSubtaskState.EMPTY, -1)) {
            KeyedProcessOperator operator = open(holder);
            for (long i = 0; i < 6; i++) {
                operator.process(0, i, 8);
            }
            RunnableFuture<OperatorSubtaskState> future = holder.snapshot(7, time.now, storage.streamFactory(7));
            // Records after the synchronous part do not change the checkpoint.
            operator.process(0, 100L, 8);
            Thread writer = new Thread(future);
            writer.start();
            writer.join();
            snapshot = future.get();
        }
        assertThat(snapshot.keyedState()).isNotEmpty();

        // The first task is gone, and with it the wake-ups it had asked for.
        time.wakeUps.clear();
        time.now = 5_000;
        try (OperatorStateHolder restored = holder(snapshot, 7)) {
            assertThat(restored.initializationContext().isRestored()).isTrue();
            KeyedProcessOperator operator = open(restored);
            operator.process(0, 30L, 8);
            // The timers set before the checkpoint were due long ago: they fire at the first wake-up.
            time.advanceTo(5_000);
        }
        assertThat(emitted).containsExactlyInAnyOrder(Tuple2.of(0L, 33L), Tuple2.of(1L, 5L), Tuple2.of(2L, 7L));
    }
}
