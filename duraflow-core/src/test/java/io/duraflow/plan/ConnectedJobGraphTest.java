package io.duraflow.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.api.Flow;
import io.duraflow.api.JobBuilder;
import io.duraflow.api.KeyedFlow;
import io.duraflow.api.connectors.SequenceSource;
import io.duraflow.api.dag.Operation;
import io.duraflow.api.dag.Plan;
import io.duraflow.api.functions.Collector;
import io.duraflow.api.functions.KeyedCoProcessFunction;
import io.duraflow.api.functions.KeyedProcessFunction;
import io.duraflow.api.functions.ProcessJoinFunction;
import io.duraflow.api.types.Types;
import io.duraflow.config.RuntimeMode;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Two connected keyed flows in the compiled graph: one vertex with two hash inputs, streaming only. */
class ConnectedJobGraphTest {
    /** Emits both inputs as they come; only its place in the plan matters here. */
    private static final class Both extends KeyedCoProcessFunction<Long, Long, String, String> {
        @Override
        public void processElement1(Long value, KeyedProcessFunction.Context<Long> context, Collector<String> out) {
            out.collect("left " + value);
        }

        @Override
        public void processElement2(String value, KeyedProcessFunction.Context<Long> context, Collector<String> out) {
            out.collect("right " + value);
        }
    }

    private static final class Pairs extends ProcessJoinFunction<Long, String, String> {
        @Override
        public void processElement(Long left, String right, Context context, Collector<String> out) {
            out.collect(left + "/" + right);
        }
    }

    private static KeyedFlow<Long, Long> numbers(JobBuilder job) {
        return job.fromSource("numbers", new SequenceSource(0, 100, 1)).keyBy(n -> n % 7, Types.LONG);
    }

    /** Numbers that are their own timestamps. */
    private static io.duraflow.api.Flow<Long> timed(JobBuilder job, String name) {
        return job.fromSource(name, new SequenceSource(0, 100, 1),
                io.duraflow.api.eventtime.WatermarkStrategy.<Long>forMonotonousTimestamps()
                        .withTimestampAssigner((n, previous) -> n));
    }

    private static KeyedFlow<String, Long> words(JobBuilder job) {
        return job.fromSource("more numbers", new SequenceSource(0, 50, 1)).map(n -> "w" + n, Types.STRING)
                .keyBy(w -> Long.parseLong(w.substring(1)) % 7, Types.LONG);
    }

    private static Plan connected() {
        JobBuilder job = new JobBuilder("connected");
        numbers(job).connect(words(job)).process(new Both(), Types.STRING).name("both").parallelism(3)
                .collect("out");
        return job.plan();
    }

    @Test
    void aKeyedCoProcessFunctionStartsAVertexWithTwoHashInputsInOrder() {
        JobGraph graph = JobGraph.compile(connected(), 2, RuntimeMode.STREAMING);

        assertThat(graph.vertices()).hasSize(3);
        JobVertex both = graph.vertex(2);
        assertThat(both.head().operation()).isInstanceOf(Operation.KeyedCoProcessOp.class);
        assertThat(both.name()).isEqualTo("both -> out");
        assertThat(both.parallelism()).isEqualTo(3);
        assertThat(both.inputs()).hasSize(2);
        ExchangeEdge left = graph.edge(both.inputs().get(0));
        ExchangeEdge right = graph.edge(both.inputs().get(1));
        assertThat(left.inputIndex()).isZero();
        assertThat(left.producer()).isZero();
        assertThat(right.inputIndex()).isEqualTo(1);
        assertThat(right.producer()).isEqualTo(1);
        assertThat(right.producerNode().name()).isEqualTo("Map");
        assertThat(graph.edges()).extracting(ExchangeEdge::strategy).containsOnly(ShipStrategy.HASH);
        assertThat(graph.edges()).extracting(ExchangeEdge::mode).containsOnly(ExchangeMode.PIPELINED);
        assertThat(graph.edges()).extracting(ExchangeEdge::combine).containsOnly(false);
        assertThat(graph.vertex(0).outputs()).containsExactly(left.id());
        assertThat(graph.vertex(1).outputs()).containsExactly(right.id());
    }

    @Test
    void oneFlowConnectedToItselfIsTwoEdgesFromOneVertex() {
        JobBuilder job = new JobBuilder("self");
        Flow<Long> numbers = job.fromSource("numbers", new SequenceSource(0, 100, 1));
        numbers.keyBy(n -> n % 7, Types.LONG).connect(numbers.map(n -> "w" + n, Types.STRING)
                .keyBy(w -> Long.parseLong(w.substring(1)) % 7, Types.LONG)).process(new Both(), Types.STRING)
                .collect("out");

        JobGraph graph = JobGraph.compile(job.plan(), 2, RuntimeMode.STREAMING);

        assertThat(graph.vertices()).hasSize(2);
        assertThat(graph.vertex(1).inputs()).hasSize(2);
        assertThat(graph.edges()).extracting(ExchangeEdge::producer).containsExactly(0, 0);
        assertThat(graph.edges()).extracting(ExchangeEdge::inputIndex).containsExactly(0, 1);
    }

    @Test
    void batchRefusesAKeyedCoProcessFunctionNamingItAndTheOption() {
        assertThatThrownBy(() -> JobGraph.compile(connected(), 2, RuntimeMode.BATCH))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("operator 'both'")
                .hasMessageContaining("streaming mode only")
                .hasMessageEndingWith("set execution.runtime-mode: streaming");
        // Automatic mode runs it in streaming mode although its sources end.
        assertThat(JobGraph.compile(connected(), 2, RuntimeMode.AUTOMATIC).mode()).isEqualTo(RuntimeMode.STREAMING);
    }

    @Test
    void connectAndIntervalJoinRefuseKeysOfDifferentTypesNamingBoth() {
        JobBuilder job = new JobBuilder("mismatch");
        KeyedFlow<Long, Long> numbers = numbers(job);
        KeyedFlow<Long, String> byText = job.fromSource("more", new SequenceSource(0, 10, 1))
                .keyBy(n -> "k" + n, Types.STRING);
        @SuppressWarnings({"unchecked", "rawtypes"})
        KeyedFlow<Long, Long> disguised = (KeyedFlow) byText;

        assertThatThrownBy(() -> numbers.connect(disguised)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("connect keys differ in type: long vs string");
        assertThatThrownBy(() -> numbers.intervalJoin(disguised)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("intervalJoin keys differ in type: long vs string");
    }

    @Test
    void anIntervalJoinIsAKeyedCoProcessOperatorWithBoundsChecked() {
        JobBuilder job = new JobBuilder("interval");
        timed(job, "numbers").keyBy(n -> n % 7, Types.LONG).intervalJoin(timed(job, "more numbers").map(n -> "w" + n, Types.STRING)
                        .keyBy(w -> Long.parseLong(w.substring(1)) % 7, Types.LONG))
                .between(Duration.ofMillis(-5), Duration.ofMillis(10))
                .upperBoundExclusive().process(new Pairs(), Types.STRING).collect("out");

        JobGraph graph = JobGraph.compile(job.plan(), 2, RuntimeMode.STREAMING);

        assertThat(graph.vertex(2).head().name()).isEqualTo("IntervalJoin");
        assertThat(graph.vertex(2).head().operation()).isInstanceOf(Operation.KeyedCoProcessOp.class);
        assertThat(graph.vertex(2).inputs()).hasSize(2);

        JobBuilder other = new JobBuilder("bad bounds");
        var join = numbers(other).intervalJoin(words(other));
        assertThatThrownBy(() -> join.between(Duration.ofMillis(3), Duration.ofMillis(2)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lower bound PT0.003S is above the upper bound PT0.002S");
        assertThatThrownBy(() -> join.between(Duration.ofMillis(2), Duration.ofMillis(2)).lowerBoundExclusive()
                .process(new Pairs(), Types.STRING)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("hold no time to join at");
    }
}
