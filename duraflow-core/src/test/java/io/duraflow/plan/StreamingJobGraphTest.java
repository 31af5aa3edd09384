package io.duraflow.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.api.JobBuilder;
import io.duraflow.api.connectors.SequenceSource;
import io.duraflow.api.dag.Operation;
import io.duraflow.api.dag.Plan;
import io.duraflow.api.dag.PlanNode;
import io.duraflow.api.functions.Collector;
import io.duraflow.api.functions.KeyedProcessFunction;
import io.duraflow.api.types.Types;
import io.duraflow.config.RuntimeMode;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Runtime modes, keyed process functions and stable operator ids in the compiled graph. */
class StreamingJobGraphTest {
    /** Keeps nothing; only its place in the plan matters here. */
    private static final class Passing extends KeyedProcessFunction<Long, Long, Long> {
        @Override
        public void processElement(Long value, Context<Long> context, Collector<Long> out) {
            out.collect(value);
        }
    }

    private static Plan keyedSum(String sourceUid) {
        JobBuilder job = new JobBuilder("keyed");
        var source = job.fromSource("numbers", new SequenceSource(0, 100, 1));
        if (sourceUid != null) {
            source.uid(sourceUid);
        }
        source.keyBy(n -> n % 7, Types.LONG).process(new Passing(), Types.LONG).parallelism(3).collect("out");
        return job.plan();
    }

    @Test
    void automaticRunsABoundedJobAsBatchAndStreamingIsChosenExplicitly() {
        JobBuilder job = new JobBuilder("sum");
        job.fromSource("numbers", new SequenceSource(0, 100, 1)).keyBy(n -> n % 7, Types.LONG).reduce(Long::sum)
                .collect("out");
        JobGraph automatic = JobGraph.compile(job.plan(), 2);
        assertThat(automatic.mode()).isEqualTo(RuntimeMode.BATCH);
        assertThat(automatic.edges()).extracting(ExchangeEdge::mode).containsOnly(ExchangeMode.BLOCKING);

        JobGraph streaming = JobGraph.compile(job.plan(), 2, RuntimeMode.STREAMING);
        assertThat(streaming.mode()).isEqualTo(RuntimeMode.STREAMING);
        assertThat(streaming.edges()).extracting(ExchangeEdge::mode).containsOnly(ExchangeMode.PIPELINED);
        assertThat(streaming.fingerprint()).isNotEqualTo(automatic.fingerprint());
    }

    @Test
    void aKeyedProcessFunctionStartsAVertexBehindAHashExchange() {
        JobGraph graph = JobGraph.compile(keyedSum(null), 2, RuntimeMode.STREAMING);
        assertThat(graph.vertices()).hasSize(2);
        assertThat(graph.vertex(1).head().operation()).isInstanceOf(Operation.KeyedProcessOp.class);
        assertThat(graph.vertex(1).parallelism()).isEqualTo(3);
        assertThat(graph.edge(0).strategy()).isEqualTo(ShipStrategy.HASH);
    }

    @Test
    void streamingFixesEveryParallelismUpFrontAndNeverCombines() {
        JobBuilder job = new JobBuilder("sum");
        job.fromSource("numbers", new SequenceSource(0, 100, 1)).keyBy(n -> n % 3, Types.LONG)
                .reduce(Long::sum).collect("sums");
        JobGraph batch = JobGraph.compile(job.plan(), 2, RuntimeMode.BATCH);
        JobGraph streaming = JobGraph.compile(job.plan(), 2, RuntimeMode.STREAMING);

        assertThat(batch.vertex(1).parallelismDecidedAtRuntime()).isTrue();
        assertThat(batch.edge(0).combine()).isTrue();
        assertThat(streaming.vertex(1).parallelism()).isEqualTo(2);
        assertThat(streaming.edge(0).combine()).isFalse();
    }

    @Test
    void batchModeRefusesAnUnboundedSourceNamingItAndTheOption() {
        JobBuilder job = new JobBuilder("endless");
        job.fromSource("ticks", new JobGraphTest.Unbounded()).collect("out");

        assertThatThrownBy(() -> JobGraph.compile(job.plan(), 1, RuntimeMode.BATCH))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("source 'ticks' is unbounded, so the job cannot run in batch mode: set"
                        + " execution.runtime-mode to streaming or automatic");
        assertThat(JobGraph.compile(job.plan(), 1).mode()).isEqualTo(RuntimeMode.STREAMING);
    }

    @Test
    void derivedUidsAreStableAcrossBuildsAndSurviveAnOperatorAddedElsewhere() {
        JobGraph first = JobGraph.compile(keyedSum(null), 2, RuntimeMode.STREAMING);
        JobGraph again = JobGraph.compile(keyedSum(null), 2, RuntimeMode.STREAMING);
        assertThat(uids(again)).isEqualTo(uids(first));
        assertThat(uids(first)).doesNotHaveDuplicates().allMatch(uid -> uid.matches("[0-9a-f]{16}"));

        // The same keyed job with an unrelated pipeline added after it: the old operators keep their ids.
        JobBuilder job = new JobBuilder("keyed");
        job.fromSource("numbers", new SequenceSource(0, 100, 1)).keyBy(n -> n % 7, Types.LONG)
                .process(new Passing(), Types.LONG).parallelism(3).collect("out");
        job.fromSource("other", new SequenceSource(0, 5, 1)).collect("other-out");
        JobGraph extended = JobGraph.compile(job.plan(), 2, RuntimeMode.STREAMING);
        assertThat(uids(extended).subList(0, 3)).isEqualTo(uids(first));
    }

    @Test
    void aUserUidIsUsedAndChangesTheIdsDerivedDownstream() {
        JobGraph graph = JobGraph.compile(keyedSum("numbers-v1"), 2, RuntimeMode.STREAMING);
        assertThat(uids(graph).get(0)).isEqualTo("numbers-v1");
        assertThat(uids(graph).get(1)).isNotEqualTo(uids(JobGraph.compile(keyedSum(null), 2, RuntimeMode.STREAMING)).get(1));
    }

    @Test
    void twoOperatorsWithOneUidOrABadUidAreRefusedWithTheirNames() {
        JobBuilder job = new JobBuilder("twice");
        job.fromSource("a", new SequenceSource(0, 1, 1)).uid("same").collect("x");
        var b = job.fromSource("b", new SequenceSource(0, 1, 1));
        assertThatThrownBy(() -> b.uid("same"))
                .hasMessage("uid 'same' is used by operators 'a' and 'b': give each operator its own");
        assertThatThrownBy(() -> b.uid("has space"))
                .hasMessageContaining("an operator uid must be 1 to 128 visible characters without spaces");
    }

    private static List<String> uids(JobGraph graph) {
        return graph.vertices().stream().flatMap(v -> v.nodes().stream()).sorted(
                java.util.Comparator.comparingInt(PlanNode::id)).map(graph::uid).toList();
    }
}
