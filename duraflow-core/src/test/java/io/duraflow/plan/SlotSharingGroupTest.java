package io.duraflow.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.api.Flow;
import io.duraflow.api.JobBuilder;
import io.duraflow.api.connectors.SequenceSource;
import io.duraflow.api.types.Types;
import io.duraflow.config.RuntimeMode;
import org.junit.jupiter.api.Test;

/** Which slot sharing group each vertex is in: its own, its inputs', or the default. */
class SlotSharingGroupTest {
    @Test
    void everyVertexIsInTheDefaultGroupUnlessGivenOne() {
        JobBuilder job = new JobBuilder("groups");
        job.fromSource("numbers", new SequenceSource(0, 10, 1)).keyBy(n -> n % 2, Types.LONG).reduce(Long::sum)
                .collect("sums");
        JobGraph graph = JobGraph.compile(job.plan(), 2, RuntimeMode.STREAMING);
        assertThat(graph.vertices()).extracting(JobVertex::slotSharingGroup)
                .containsExactly(Flow.DEFAULT_SLOT_SHARING_GROUP, Flow.DEFAULT_SLOT_SHARING_GROUP);
    }

    @Test
    void aVertexTakesItsInputsGroupWhenTheyAllHaveTheSameAndTheDefaultOtherwise() {
        JobBuilder job = new JobBuilder("groups");
        Flow<Long> left = job.fromSource("left", new SequenceSource(0, 10, 1)).slotSharingGroup("a");
        Flow<Long> right = job.fromSource("right", new SequenceSource(0, 10, 1)).slotSharingGroup("b");
        Flow<Long> leftSums = left.keyBy(n -> n % 2, Types.LONG).reduce(Long::sum);
        leftSums.union(right).keyBy(n -> n, Types.LONG).reduce(Long::sum).collect("sums");
        JobGraph graph = JobGraph.compile(job.plan(), 2, RuntimeMode.STREAMING);
        assertThat(graph.vertices()).extracting(JobVertex::slotSharingGroup)
                .containsExactly("a", "b", "a", Flow.DEFAULT_SLOT_SHARING_GROUP);
    }

    @Test
    void aChainedOperatorCannotHaveAGroupOfItsOwnAndAGroupNameIsChecked() {
        JobBuilder job = new JobBuilder("groups");
        job.fromSource("numbers", new SequenceSource(0, 10, 1)).map(n -> n + 1, Types.LONG).slotSharingGroup("x")
                .collect("all");
        assertThatThrownBy(() -> JobGraph.compile(job.plan(), 2, RuntimeMode.STREAMING))
                .hasMessage("operator 'Map' runs chained to its input and takes its slot sharing group; set"
                        + " slotSharingGroup on sources, rebalance(), keyed operators and joins");
        Flow<Long> numbers = new JobBuilder("names").fromSource("numbers", new SequenceSource(0, 10, 1));
        assertThatThrownBy(() -> numbers.slotSharingGroup("two words"))
                .hasMessageContaining("1 to 64 visible characters without spaces");
    }
}
