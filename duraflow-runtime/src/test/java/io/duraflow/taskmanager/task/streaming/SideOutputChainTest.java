package io.duraflow.taskmanager.task.streaming;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.api.Flow;
import io.duraflow.api.JobBuilder;
import io.duraflow.api.connectors.SequenceSource;
import io.duraflow.api.dag.Operation;
import io.duraflow.api.dag.PlanNode;
import io.duraflow.api.functions.Collector;
import io.duraflow.api.functions.KeyedProcessFunction;
import io.duraflow.api.functions.OutputTag;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.api.types.Types;
import io.duraflow.config.Configuration;
import io.duraflow.config.RuntimeMode;
import io.duraflow.plan.ExchangeEdge;
import io.duraflow.plan.JobGraph;
import io.duraflow.state.KeyGroupRange;
import io.duraflow.state.OperatorSubtaskState;
import io.duraflow.state.loader.StateBackendLoader;
import io.duraflow.taskmanager.task.ChainedOperators;
import io.duraflow.taskmanager.task.Downstream;
import io.duraflow.taskmanager.task.OperatorChain;
import io.duraflow.taskmanager.task.SideOutputs;
import io.duraflow.taskmanager.task.StreamOperator;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A keyed process function's side outputs wired by {@link OperatorChain}: each record goes to the
 * readers of its own output only, with the timestamp it would have on the main output; watermarks
 * (after what the timers they fire emitted) and the end of input reach every reader.
 */
class SideOutputChainTest {
    private static final OutputTag<String> EVEN = new OutputTag<>("even", Types.STRING);
    private static final OutputTag<Long> BIG = new OutputTag<>("big", Types.LONG);
    private static final OutputTag<String> UNREAD = new OutputTag<>("unread", Types.STRING);

    /** Main: every value; "even": even values; "big": values of 100 and more; "unread": all; a timer at each value. */
    static final class Splitter extends KeyedProcessFunction<Long, Long, Long> {
        @Override
        public void processElement(Long value, Context<Long> context, Collector<Long> out) {
            out.collect(value);
            if (value % 2 == 0) {
                context.output(EVEN, "even " + value);
            }
            if (value >= 100) {
                context.output(BIG, value);
            }
            context.output(UNREAD, "nobody reads " + value);
            context.timerService().registerEventTimeTimer(value + 1);
        }

        @Override
        public void onTimer(long timestamp, Context<Long> context, Collector<Long> out) {
            context.output(EVEN, "timer " + timestamp);
        }
    }

    @TempDir
    Path dir;

    private final RecordTime recordTime = new RecordTime();
    private final List<String> seen = new ArrayList<>();

    /** A terminal operator that logs what reaches it under its node's name. */
    private Downstream recorder(String name) {
        return new Downstream() {
            @Override
            public void push(Object record) {
                seen.add(name + ": " + record + " @" + recordTime.timestamp);
            }

            @Override
            public void processWatermark(long watermark) {
                seen.add(name + ": watermark " + watermark);
            }

            @Override
            public void endInput() {
                seen.add(name + ": end");
            }
        };
    }

    @Test
    void eachRecordGoesToTheReadersOfItsOutputAndEventsToAll() throws Exception {
        JobBuilder job = new JobBuilder("sides");
        Flow<Long> processed = job.fromSource("numbers", new SequenceSource(0, 10, 1)).keyBy(n -> n % 3, Types.LONG)
                .process(new Splitter(), Types.LONG);
        processed.collect("main");
        processed.sideOutput(EVEN).collect("evens");
        processed.sideOutput(EVEN).collect("evens again");
        processed.sideOutput(BIG).keyBy(n -> n, Types.LONG).reduce(Long::sum).collect("sums");
        JobGraph graph = JobGraph.compile(job.plan(), 1, RuntimeMode.STREAMING);
        Operation.KeyedProcessOp op = (Operation.KeyedProcessOp) graph.vertex(1).head().operation();

        KeyedProcessOperatorTest.ManualTime time = new KeyedProcessOperatorTest.ManualTime();
        @SuppressWarnings("unchecked")
        OperatorStateHolder holder = OperatorStateHolder.create(StateBackendLoader.fromConfiguration(
                Configuration.fromMap(Map.of())), "split", "split 1/1", OperatorSubtaskState.EMPTY, -1,
                new OperatorStateHolder.Keyed((TypeSerializer<Object>) (TypeSerializer<?>) op.keyType(), 128,
                        new KeyGroupRange(0, 127), dir.resolve("local")));
        OperatorChain chain = new OperatorChain(graph, graph.vertex(1));
        chain.build(new OperatorChain.Wiring() {
            @Override
            public Downstream exchange(ExchangeEdge edge) {
                return recorder("exchange from " + edge.producerNode().name());
            }

            @Override
            public Downstream chained(PlanNode node, Downstream out) {
                return node.operation() instanceof Operation.SideOutputOp ? ChainedOperators.passThrough(out)
                        : recorder(node.name());
            }

            @Override
            public StreamOperator head(PlanNode node, Downstream out, SideOutputs sideOutputs) {
                return new KeyedProcessOperator(op, out, sideOutputs, time, recordTime);
            }
        });
        chain.open(new StreamOperator.OperatorContext("job", 0, 1, 0),
                operator -> operator == chain.head() ? holder.initializationContext()
                        : StreamOperator.StateInitializationContext.EMPTY);
        try {
            for (long value : new long[] {3, 100, 7}) {
                recordTime.timestamp = value * 10;
                chain.head().process(0, value, 8);
            }
            chain.head().processWatermark(50);
            chain.head().endInput(0);
            chain.endInput();
        } finally {
            chain.close();
            holder.close();
        }

        assertThat(seen).containsExactly(
                "main: 3 @30",
                "main: 100 @1000",
                "evens: even 100 @1000",
                "evens again: even 100 @1000",
                "exchange from SideOutput[big]: 100 @1000",
                "main: 7 @70",
                // the timers at 4 and 8 fire before the watermark goes on, with their own times
                "evens: timer 4 @4",
                "evens again: timer 4 @4",
                "evens: timer 8 @8",
                "evens again: timer 8 @8",
                "main: watermark 50",
                "evens: watermark 50",
                "evens again: watermark 50",
                "exchange from SideOutput[big]: watermark 50",
                "main: end",
                "evens: end",
                "evens again: end",
                "exchange from SideOutput[big]: end");
    }
}
