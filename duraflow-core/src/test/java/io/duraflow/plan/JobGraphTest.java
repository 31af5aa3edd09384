package io.duraflow.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.api.Flow;
import io.duraflow.api.JobBuilder;
import io.duraflow.api.connectors.RangeSplit;
import io.duraflow.api.connectors.SequenceSource;
import io.duraflow.api.dag.Plan;
import io.duraflow.api.dag.PlanNode;
import io.duraflow.api.source.Boundedness;
import io.duraflow.api.source.Source;
import io.duraflow.api.source.SourceReader;
import io.duraflow.api.source.SourceReaderContext;
import io.duraflow.api.source.SplitEnumerator;
import io.duraflow.api.source.SplitEnumeratorContext;
import io.duraflow.api.source.SplitSerializer;
import io.duraflow.api.types.TypeSerializer;
import io.duraflow.api.types.Tuple2;
import io.duraflow.api.types.Types;
import org.junit.jupiter.api.Test;

class JobGraphTest {
    private static Plan wordCountLike(long to) {
        JobBuilder job = new JobBuilder("test");
        job.fromSource("numbers", new SequenceSource(0, to, 4))
                .map(n -> Tuple2.of("k" + (n % 10), n), Types.tuple(Types.STRING, Types.LONG))
                .filter(t -> t.f1() >= 0)
                .keyBy(Tuple2::f0, Types.STRING)
                .reduce((a, b) -> Tuple2.of(a.f0(), a.f1() + b.f1()))
                .collect("out");
        return job.plan();
    }

    @Test
    void chainsForwardOperatorsAndCutsAtKeyBy() {
        JobGraph graph = JobGraph.compile(wordCountLike(100), 3);
        assertThat(graph.vertices()).hasSize(2);
        JobVertex source = graph.vertex(0);
        assertThat(source.name()).isEqualTo("numbers -> Map -> Filter");
        assertThat(source.parallelism()).isEqualTo(3);
        JobVertex reduce = graph.vertex(1);
        assertThat(reduce.name()).isEqualTo("Reduce -> out");
        assertThat(reduce.parallelismDecidedAtRuntime()).isTrue();
        assertThat(graph.edges()).singleElement().satisfies(edge -> {
            assertThat(edge.producer()).isEqualTo(0);
            assertThat(edge.consumer()).isEqualTo(1);
            assertThat(edge.strategy()).isEqualTo(ShipStrategy.HASH);
            assertThat(edge.combine()).isTrue();
        });
    }

    @Test
    void batchCompilationMakesEveryEdgeBlockingWithTheStrategyOfItsOperator() {
        JobBuilder job = new JobBuilder("strategies");
        job.fromSource("numbers", new SequenceSource(0, 10, 1)).rebalance()
                .keyBy(n -> n % 3, Types.LONG).reduce(Long::sum).collect("out");
        JobGraph graph = JobGraph.compile(job.plan(), 2);
        assertThat(graph.edges()).extracting(ExchangeEdge::mode)
                .containsExactly(ExchangeMode.BLOCKING, ExchangeMode.BLOCKING);
        assertThat(graph.edges()).extracting(ExchangeEdge::strategy)
                .containsExactly(ShipStrategy.REBALANCE, ShipStrategy.HASH);
        // the combiner runs only before the blocking hash exchange of the aggregation
        assertThat(graph.edges()).extracting(ExchangeEdge::combine).containsExactly(false, true);
    }

    @Test
    void aCombinerNeedsABlockingHashEdge() {
        Plan plan = wordCountLike(10);
        PlanNode producer = plan.nodes().get(0);
        PlanNode consumer = plan.nodes().get(3);
        assertThatThrownBy(() -> new ExchangeEdge(0, 0, 1, producer, consumer, 0, ExchangeMode.PIPELINED,
                ShipStrategy.HASH, true)).hasMessageContaining("blocking hash");
        assertThatThrownBy(() -> new ExchangeEdge(0, 0, 1, producer, consumer, 0, ExchangeMode.BLOCKING,
                ShipStrategy.REBALANCE, true)).hasMessageContaining("blocking hash");
    }

    @Test
    void sourcesAreBoundedByDefaultAndAnUnboundedSourceMakesItsConsumersUnbounded() {
        JobGraph bounded = JobGraph.compile(wordCountLike(100), 2);
        assertThat(bounded.vertices()).extracting(JobVertex::boundedness)
                .containsOnly(Boundedness.BOUNDED);
        assertThat(bounded.isBounded()).isTrue();

        JobBuilder job = new JobBuilder("unbounded");
        Flow<Long> endless = job.fromSource("endless", new Unbounded());
        Flow<Long> finite = job.fromSource("finite", new SequenceSource(0, 10, 1));
        endless.union(finite).keyBy(n -> n, Types.LONG).reduce(Long::sum).collect("sums");
        JobGraph graph = JobGraph.compile(job.plan(), 1);
        assertThat(graph.vertices()).extracting(JobVertex::boundedness).containsExactly(
                Boundedness.CONTINUOUS_UNBOUNDED, Boundedness.BOUNDED, Boundedness.CONTINUOUS_UNBOUNDED);
        assertThat(graph.isBounded()).isFalse();
    }

    @Test
    void fingerprintCoversBoundedness() {
        JobBuilder bounded = new JobBuilder("b");
        bounded.fromSource("s", new SequenceSource(0, 10, 1)).collect("out");
        JobBuilder unbounded = new JobBuilder("b");
        unbounded.fromSource("s", new Unbounded()).collect("out");
        assertThat(JobGraph.compile(unbounded.plan(), 1).fingerprint())
                .isNotEqualTo(JobGraph.compile(bounded.plan(), 1).fingerprint());
    }

    /** A sequence that claims to be unbounded; only its flag matters to the plan. */
    static final class Unbounded implements Source<Long, RangeSplit> {
        private final SequenceSource delegate = new SequenceSource(0, 10, 1);

        @Override
        public Boundedness boundedness() {
            return Boundedness.CONTINUOUS_UNBOUNDED;
        }

        @Override
        public SplitEnumerator<RangeSplit> createEnumerator(SplitEnumeratorContext<RangeSplit> context)
                throws Exception {
            return delegate.createEnumerator(context);
        }

        @Override
        public SplitEnumerator<RangeSplit> restoreEnumerator(SplitEnumeratorContext<RangeSplit> context, byte[] state)
                throws Exception {
            return delegate.restoreEnumerator(context, state);
        }

        @Override
        public SourceReader<Long, RangeSplit> createReader(SourceReaderContext context) throws Exception {
            return delegate.createReader(context);
        }

        @Override
        public SplitSerializer<RangeSplit> splitSerializer() {
            return delegate.splitSerializer();
        }

        @Override
        public TypeSerializer<Long> producedType() {
            return delegate.producedType();
        }

        @Override
        public String description() {
            return delegate.description();
        }
    }

    @Test
    void fingerprintIsStableAndSensitiveToThePlan() {
        String first = JobGraph.compile(wordCountLike(100), 2).fingerprint();
        assertThat(JobGraph.compile(wordCountLike(100), 2).fingerprint()).isEqualTo(first);
        assertThat(JobGraph.compile(wordCountLike(101), 2).fingerprint()).isNotEqualTo(first);
        assertThat(JobGraph.compile(wordCountLike(100), 3).fingerprint()).isNotEqualTo(first);
    }

    @Test
    void joinHasTwoHashInputs() {
        JobBuilder job = new JobBuilder("join");
        var left = job.fromSource("left", new SequenceSource(0, 10, 1)).keyBy(n -> n, Types.LONG);
        var right = job.fromSource("right", new SequenceSource(0, 10, 1)).keyBy(n -> n, Types.LONG);
        left.join(right, (a, b) -> a + b, Types.LONG).collect("sums");
        JobGraph graph = JobGraph.compile(job.plan(), 1);
        assertThat(graph.vertices()).hasSize(3);
        assertThat(graph.vertex(2).inputs()).hasSize(2);
        assertThat(graph.edge(0).inputIndex()).isEqualTo(0);
        assertThat(graph.edge(1).inputIndex()).isEqualTo(1);
        assertThat(graph.edge(1).combine()).isFalse();
    }

    @Test
    void danglingOutputIsAnError() {
        JobBuilder job = new JobBuilder("dangling");
        Flow<Long> numbers = job.fromSource("numbers", new SequenceSource(0, 10, 1));
        numbers.map(n -> n + 1, Types.LONG).name("lonely");
        numbers.collect("out");
        assertThatThrownBy(() -> JobGraph.compile(job.plan(), 1)).hasMessageContaining("'lonely' goes nowhere");
    }

    @Test
    void parallelismOnAChainedOperatorIsAnError() {
        JobBuilder job = new JobBuilder("p");
        job.fromSource("numbers", new SequenceSource(0, 10, 1)).map(n -> n, Types.LONG).parallelism(4).collect("x");
        assertThatThrownBy(() -> JobGraph.compile(job.plan(), 1)).hasMessageContaining("runs chained");
    }

    @Test
    void aFixedParallelismAboveTheKeyGroupsOfItsInputIsRefusedNamingVertexParallelismAndOption() {
        JobBuilder job = new JobBuilder("wide");
        job.fromSource("numbers", new SequenceSource(0, 10, 1)).parallelism(300)
                .rebalance().parallelism(200).map(n -> n + 1, Types.LONG).collect("out");
        JobGraph graph = JobGraph.compile(job.plan(), 1);

        assertThatThrownBy(() -> graph.checkKeyGroups(128)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("vertex 'Rebalance -> Map -> out' has parallelism 200 but its input has only 128 key"
                        + " groups: lower its parallelism or raise execution.batch.max-key-groups to at least 200");
        graph.checkKeyGroups(200);
    }

    @Test
    void sourcesAndRuntimeDecidedParallelismAlwaysFitTheKeyGroups() {
        JobBuilder job = new JobBuilder("adaptive");
        job.fromSource("numbers", new SequenceSource(0, 10, 1)).parallelism(500)
                .keyBy(n -> n, Types.LONG).reduce(Long::sum).collect("out");
        JobGraph.compile(job.plan(), 1).checkKeyGroups(1);
    }
}
