package io.duraflow.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.api.Flow;
import io.duraflow.api.JobBuilder;
import io.duraflow.api.connectors.SequenceSource;
import io.duraflow.api.dag.Operation;
import io.duraflow.api.dag.Plan;
import io.duraflow.api.dag.PlanNode;
import io.duraflow.api.functions.Collector;
import io.duraflow.api.functions.KeyedProcessFunction;
import io.duraflow.api.functions.OutputTag;
import io.duraflow.api.types.Types;
import io.duraflow.config.RuntimeMode;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Side outputs chained to their keyed process function; unions read through exchanges or in a vertex of their own. */
class SideOutputAndUnionGraphTest {
    private static final OutputTag<String> EVEN = new OutputTag<>("even", Types.STRING);
    private static final OutputTag<Long> BIG = new OutputTag<>("big", Types.LONG);

    /** Keeps nothing; only its place in the plan matters here. */
    private static final class Passing extends KeyedProcessFunction<Long, Long, Long> {
        @Override
        public void processElement(Long value, Context<Long> context, Collector<Long> out) {
            out.collect(value);
        }
    }

    private static Flow<Long> numbers(JobBuilder job, String name, int parallelism) {
        return job.fromSource(name, new SequenceSource(0, 100, 1)).parallelism(parallelism);
    }

    private static Plan sideOutputs(String evenTagId) {
        JobBuilder job = new JobBuilder("sides");
        Flow<Long> processed = numbers(job, "numbers", 2).keyBy(n -> n % 7, Types.LONG).process(new Passing(), Types.LONG)
                .parallelism(3);
        processed.collect("main");
        processed.sideOutput(new OutputTag<>(evenTagId, Types.STRING)).collect("even");
        processed.sideOutput(BIG).keyBy(n -> n, Types.LONG).process(new Passing(), Types.LONG).collect("big");
        return job.plan();
    }

    @Test
    void sideOutputsRunChainedToTheirKeyedProcessFunctionAndMayBeKeyedAgain() {
        JobGraph graph = JobGraph.compile(sideOutputs("even"), 2, RuntimeMode.STREAMING);

        assertThat(graph.vertices()).extracting(JobVertex::name).containsExactly("numbers",
                "KeyedProcess -> main -> SideOutput[even] -> even -> SideOutput[big]", "KeyedProcess -> big");
        JobVertex process = graph.vertex(1);
        assertThat(graph.chainedConsumers(process.head())).extracting(PlanNode::name)
                .containsExactly("main", "SideOutput[even]", "SideOutput[big]");
        PlanNode big = process.nodes().get(4);
        assertThat(((Operation.SideOutputOp) big.operation()).tag()).isEqualTo(BIG);
        assertThat(big.outputType()).isSameAs(Types.LONG);
        assertThat(graph.edges()).hasSize(2);
        assertThat(graph.outgoingEdges(big)).singleElement().satisfies(edge -> {
            assertThat(edge.strategy()).isEqualTo(ShipStrategy.HASH);
            assertThat(edge.consumer()).isEqualTo(2);
        });
        assertThat(graph.outgoingEdges(process.head())).isEmpty();
    }

    @Test
    void twoSideOutputsOfOneTagAreTwoFlows() {
        JobBuilder job = new JobBuilder("twice");
        Flow<Long> processed = numbers(job, "numbers", 1).keyBy(n -> n, Types.LONG).process(new Passing(), Types.LONG);
        processed.collect("main");
        processed.sideOutput(BIG).collect("first");
        processed.sideOutput(BIG).collect("second");
        JobGraph graph = JobGraph.compile(job.plan(), 1, RuntimeMode.STREAMING);
        assertThat(graph.vertex(1).nodes()).extracting(PlanNode::name).containsExactly("KeyedProcess", "main",
                "SideOutput[big]", "first", "SideOutput[big]", "second");
        assertThat(graph.uid(graph.vertex(1).nodes().get(2))).isNotEqualTo(graph.uid(graph.vertex(1).nodes().get(4)));
    }

    @Test
    void anOperatorThatCannotEmitSideOutputsIsRefusedNamingIt() {
        Flow<Long> mapped = numbers(new JobBuilder("map"), "numbers", 1).map(n -> n, Types.LONG).name("double");
        assertThatThrownBy(() -> mapped.sideOutput(EVEN)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("operator 'double' cannot emit side outputs, so side output 'even' cannot read it: only a"
                        + " keyed process function (keyBy(...).process(...), windows, connect(...).process(...))"
                        + " emits them");

        // A plan built without the fluent API is checked when it is compiled.
        Plan plan = new Plan("raw");
        PlanNode source = plan.add("numbers", new Operation.SourceOp(new SequenceSource(0, 10, 1)), List.of(),
                Types.LONG);
        @SuppressWarnings("unchecked")
        OutputTag<Object> tag = (OutputTag<Object>) (OutputTag<?>) EVEN;
        PlanNode side = plan.add("side", new Operation.SideOutputOp(tag), List.of(source), Types.STRING);
        plan.add("out", new Operation.CollectOp(), List.of(side), null);
        assertThatThrownBy(() -> JobGraph.compile(plan, 1, RuntimeMode.STREAMING))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("operator 'numbers' cannot emit side outputs");
    }

    @Test
    void batchRefusesKeyedProcessFunctionsWhichAutomaticRunsAsStreamingAndStreamingRefusesTheBatchJoin() {
        String streamingOnly = "operator 'KeyedProcess' is a keyed process function or its side output, which runs"
                + " in streaming mode only: run the job in streaming mode (execution.runtime-mode: streaming)";
        assertThatThrownBy(() -> JobGraph.compile(sideOutputs("even"), 2, RuntimeMode.BATCH))
                .isInstanceOf(IllegalArgumentException.class).hasMessage(streamingOnly);
        // Automatic mode runs it in streaming mode, though its sources are bounded.
        assertThat(JobGraph.compile(sideOutputs("even"), 2).mode()).isEqualTo(RuntimeMode.STREAMING);

        JobBuilder job = new JobBuilder("join");
        var left = numbers(job, "left", 1).keyBy(n -> n, Types.LONG);
        left.join(numbers(job, "right", 1).keyBy(n -> n, Types.LONG), Long::sum, Types.LONG).name("pairs")
                .collect("sums");
        assertThatThrownBy(() -> JobGraph.compile(job.plan(), 1, RuntimeMode.STREAMING))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("operator 'pairs' is a batch equi-join, which does not run in streaming mode: run the job"
                        + " in batch mode (execution.runtime-mode: batch)");
        assertThat(JobGraph.compile(job.plan(), 1, RuntimeMode.BATCH).vertices()).hasSize(3);
    }

    @Test
    void aKeyedOperatorReadsEveryInputOfAUnionThroughAnEdgeOfItsOwn() {
        JobBuilder job = new JobBuilder("union");
        Flow<Long> a = numbers(job, "a", 2);
        Flow<Long> b = numbers(job, "b", 3).map(n -> n * 2, Types.LONG);
        Flow<Long> c = numbers(job, "c", 1);
        a.union(b).union(c).keyBy(n -> n % 5, Types.LONG).reduce(Long::sum).parallelism(4).collect("sums");
        JobGraph graph = JobGraph.compile(job.plan(), 2, RuntimeMode.STREAMING);

        assertThat(graph.vertices()).extracting(JobVertex::name).containsExactly("a", "b -> Map", "c", "Reduce -> sums");
        assertThat(graph.vertex(3).inputs()).hasSize(3);
        assertThat(graph.edges()).extracting(edge -> edge.producerNode().name()).containsExactly("a", "Map", "c");
        assertThat(graph.edges()).allSatisfy(edge -> {
            assertThat(edge.consumer()).isEqualTo(3);
            assertThat(edge.inputIndex()).isZero();
            assertThat(edge.strategy()).isEqualTo(ShipStrategy.HASH);
        });
        assertThat(graph.virtualNodes()).extracting(PlanNode::name).containsExactly("Union", "Union");
    }

    @Test
    void aUnionThatChainedOperatorsReadIsAVertexReadingForwardFromTheSameParallelism() {
        JobBuilder job = new JobBuilder("union");
        numbers(job, "two", 2).union(numbers(job, "three", 3)).map(n -> n + 1, Types.LONG).collect("out");

        JobGraph streaming = JobGraph.compile(job.plan(), 2, RuntimeMode.STREAMING);
        assertThat(streaming.vertices()).extracting(JobVertex::name).containsExactly("two", "three", "Union -> Map -> out");
        assertThat(streaming.vertex(2).parallelism()).isEqualTo(2);
        assertThat(streaming.edges()).extracting(ExchangeEdge::strategy)
                .containsExactly(ShipStrategy.FORWARD, ShipStrategy.REBALANCE);
        assertThat(streaming.edges()).extracting(ExchangeEdge::inputIndex).containsOnly(0);
        assertThat(streaming.virtualNodes()).isEmpty();

        // Batch decides the union's parallelism at runtime: no producer can know it has the same.
        JobGraph batch = JobGraph.compile(job.plan(), 2, RuntimeMode.BATCH);
        assertThat(batch.edges()).extracting(ExchangeEdge::strategy).containsOnly(ShipStrategy.REBALANCE);
        assertThat(batch.edges()).extracting(ExchangeEdge::mode).containsOnly(ExchangeMode.BLOCKING);
    }

    @Test
    void aUnionVertexReadsTheInputsOfNestedUnionsAndOfSideOutputsAsOneInput() {
        JobBuilder job = new JobBuilder("nested");
        Flow<Long> processed = numbers(job, "a", 2).keyBy(n -> n, Types.LONG).process(new Passing(), Types.LONG);
        processed.union(processed.sideOutput(BIG)).union(numbers(job, "c", 2)).map(n -> n, Types.LONG).collect("out");
        JobGraph graph = JobGraph.compile(job.plan(), 2, RuntimeMode.STREAMING);

        assertThat(graph.vertices()).extracting(JobVertex::name).containsExactly("a", "KeyedProcess -> SideOutput[big]",
                "c", "Union -> Map -> out");
        assertThat(graph.edges().subList(1, 4)).extracting(edge -> edge.producerNode().name() + " in="
                + edge.inputIndex() + " " + edge.strategy()).containsExactly("KeyedProcess in=0 FORWARD",
                "SideOutput[big] in=0 FORWARD", "c in=0 FORWARD");
        assertThat(graph.virtualNodes()).extracting(PlanNode::name).containsExactly("Union");
    }

    @Test
    void aUnionReadByBothKindsIsAVertexForTheChainedOnesAndVirtualForTheKeyedOnes() {
        JobBuilder job = new JobBuilder("both");
        Flow<Long> union = numbers(job, "a", 1).union(numbers(job, "b", 1));
        union.collect("all");
        union.keyBy(n -> n, Types.LONG).reduce(Long::sum).collect("sums");
        JobGraph graph = JobGraph.compile(job.plan(), 1, RuntimeMode.STREAMING);

        assertThat(graph.vertices()).extracting(JobVertex::name).containsExactly("a", "b", "Union -> all", "Reduce -> sums");
        assertThat(graph.edges()).extracting(edge -> edge.producerNode().name() + "->" + edge.consumerNode().name()
                + " " + edge.strategy()).containsExactly("a->Union FORWARD", "b->Union FORWARD", "a->Reduce HASH",
                "b->Reduce HASH");
    }

    @Test
    void aVirtualUnionTakesNoParallelismAndAVertexTakesItsInputsSlotSharingGroup() {
        JobBuilder job = new JobBuilder("p");
        numbers(job, "a", 1).union(numbers(job, "b", 1)).parallelism(3).keyBy(n -> n, Types.LONG).reduce(Long::sum)
                .collect("sums");
        assertThatThrownBy(() -> JobGraph.compile(job.plan(), 1, RuntimeMode.STREAMING))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("operator 'Union' is read only by keyed operators, rebalance() or unions, which read its"
                        + " inputs directly, so it takes no parallelism or slot sharing group; set them on its readers");

        JobBuilder groups = new JobBuilder("groups");
        Flow<Long> a = numbers(groups, "a", 1).slotSharingGroup("x");
        Flow<Long> b = numbers(groups, "b", 1).slotSharingGroup("x");
        a.union(b).keyBy(n -> n, Types.LONG).reduce(Long::sum).collect("sums");
        a.union(b).parallelism(2).map(n -> n, Types.LONG).collect("mapped");
        JobGraph graph = JobGraph.compile(groups.plan(), 1, RuntimeMode.STREAMING);
        assertThat(graph.vertices()).extracting(JobVertex::slotSharingGroup).containsOnly("x");
        assertThat(graph.vertex(3).parallelism()).isEqualTo(2);
        assertThat(graph.edges().subList(2, 4)).extracting(ExchangeEdge::strategy).containsOnly(ShipStrategy.REBALANCE);
    }

    @Test
    void unionRefusesNoFlowAFlowOfAnotherJobAndAnotherTypeNamingBoth() {
        JobBuilder job = new JobBuilder("union");
        Flow<Long> a = numbers(job, "a", 1);
        assertThatThrownBy(() -> a.union()).hasMessage("union of 'a' needs at least one other flow");
        Flow<Long> foreign = numbers(new JobBuilder("other"), "foreign", 1);
        assertThatThrownBy(() -> a.union(foreign)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("cannot union 'a' with 'foreign': 'foreign' belongs to another job plan");
        Flow<Long> nullable = numbers(job, "b", 1).map(n -> n, Types.nullable(Types.LONG)).name("maybe");
        assertThatThrownBy(() -> a.union(nullable)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("cannot union 'a' (long) with 'maybe' (")
                .hasMessageEndingWith("): the flows of a union must have one type");
    }

    @Test
    void theFingerprintCoversSideOutputTagsAndTheShapeOfUnions() {
        assertThat(JobGraph.compile(sideOutputs("even"), 2, RuntimeMode.STREAMING).fingerprint())
                .isEqualTo(JobGraph.compile(sideOutputs("even"), 2, RuntimeMode.STREAMING).fingerprint())
                .isNotEqualTo(JobGraph.compile(sideOutputs("odd"), 2, RuntimeMode.STREAMING).fingerprint());

        assertThat(unionFingerprint(false, false)).isEqualTo(unionFingerprint(false, false))
                .isNotEqualTo(unionFingerprint(true, false)).isNotEqualTo(unionFingerprint(false, true));
    }

    /** a ∪ b (or b ∪ a) into a keyed reduce, or into a map. */
    private static String unionFingerprint(boolean swapped, boolean chained) {
        JobBuilder job = new JobBuilder("u");
        Flow<Long> a = numbers(job, "a", 1);
        Flow<Long> b = numbers(job, "b", 1);
        Flow<Long> union = swapped ? b.union(a) : a.union(b);
        if (chained) {
            union.map(n -> n, Types.LONG).collect("out");
        } else {
            union.keyBy(n -> n, Types.LONG).reduce(Long::sum).collect("out");
        }
        return JobGraph.compile(job.plan(), 1, RuntimeMode.STREAMING).fingerprint();
    }
}
