package io.duraflow.jobmanager.jobmaster.coordination;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.api.JobBuilder;
import io.duraflow.config.RuntimeMode;
import io.duraflow.api.eventtime.WatermarkStrategy;
import io.duraflow.api.connectors.DataGeneratorSource;
import io.duraflow.api.types.Types;
import io.duraflow.plan.JobGraph;
import io.duraflow.plan.JobVertex;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The group minimum of {@link WatermarkAlignmentGroups}, one rule of its javadoc after another. */
class WatermarkAlignmentGroupsTest {
    private static final int FAST = 1;
    private static final int SLOW = 2;
    private static final int OTHER = 3;
    private static final long END = Long.MAX_VALUE;

    /** Sources FAST and SLOW share group "g"; OTHER is alone in "h". */
    private final WatermarkAlignmentGroups groups = new WatermarkAlignmentGroups(
            Map.of(FAST, "g", SLOW, "g", OTHER, "h"));

    @Test
    void readersCountFromTheirFirstReport() {
        assertThat(groups.minimum("g")).as("nobody reported: nobody is held").isEqualTo(END);
        assertThat(groups.report(FAST, 0, 5_000)).isEqualTo(5_000);
        assertThat(groups.report(FAST, 1, 7_000)).as("subtask 0 is the lowest").isEqualTo(5_000);
        assertThat(groups.report(FAST, 0, 8_000)).as("a reader's last report counts").isEqualTo(7_000);
        assertThat(groups.report(SLOW, 0, 1_000)).as("a reader joining later lowers the minimum")
                .isEqualTo(1_000);
    }

    @Test
    void severalSourcesShareAGroupAndGroupsAreApart() {
        groups.report(FAST, 0, 50_000);
        groups.report(SLOW, 0, 2_000);
        groups.report(SLOW, 1, 3_000);
        assertThat(groups.report(OTHER, 0, 100)).as("group h has its own minimum").isEqualTo(100);
        assertThat(groups.minimum("g")).isEqualTo(2_000);
        groups.report(SLOW, 0, 4_000);
        assertThat(groups.minimum("g")).isEqualTo(3_000);
    }

    @Test
    void idleAndEndedReadersHoldNothingBack() {
        groups.report(FAST, 0, 9_000);
        groups.report(SLOW, 0, 1_000);
        assertThat(groups.report(SLOW, 0, END)).as("the slow reader idles").isEqualTo(9_000);
        assertThat(groups.report(FAST, 0, END)).as("every reader idle or ended").isEqualTo(END);
        assertThat(groups.report(SLOW, 0, 2_000)).as("active again, it counts again").isEqualTo(2_000);
    }

    @Test
    void finishedAndResetReadersNoLongerCount() {
        groups.report(FAST, 0, 9_000);
        groups.report(SLOW, 0, 1_000);
        groups.report(SLOW, 1, 3_000);
        groups.forget(SLOW, 0); // finished
        assertThat(groups.minimum("g")).isEqualTo(3_000);
        groups.forget(SLOW, 1); // its attempt was replaced
        assertThat(groups.minimum("g")).isEqualTo(9_000);
        assertThat(groups.report(SLOW, 1, 4_000)).as("the new attempt counts from its report").isEqualTo(4_000);
        groups.forget(OTHER, 7); // never reported: nothing to forget
        groups.forgetAll();
        assertThat(groups.minimum("g")).as("after a restart, nobody reported yet").isEqualTo(END);
    }

    @Test
    void aReportOfAnUnalignedSourceIsRefused() {
        assertThat(groups.aligns(FAST)).isTrue();
        assertThat(groups.aligns(9)).isFalse();
        assertThatThrownBy(() -> groups.report(9, 0, 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no alignment");
    }

    @Test
    void theGroupsComeFromTheSourcesStrategies() {
        JobBuilder job = new JobBuilder("aligned");
        var aligned = job.fromSource("aligned", DataGeneratorSource.of("a", Types.LONG, i -> i),
                WatermarkStrategy.<Long>forMonotonousTimestamps().withAlignment("g", Duration.ofSeconds(1)));
        var plain = job.fromSource("plain", DataGeneratorSource.of("b", Types.LONG, i -> i),
                WatermarkStrategy.<Long>forMonotonousTimestamps());
        aligned.union(plain).collect("out");
        JobGraph graph = JobGraph.compile(job.plan(), 1, RuntimeMode.STREAMING);
        WatermarkAlignmentGroups fromGraph = WatermarkAlignmentGroups.of(graph);
        int alignedNode = -1;
        int plainNode = -1;
        for (JobVertex vertex : graph.vertices()) {
            if (vertex.head().name().equals("aligned")) {
                alignedNode = vertex.head().id();
            } else if (vertex.head().name().equals("plain")) {
                plainNode = vertex.head().id();
            }
        }
        assertThat(fromGraph.aligns(alignedNode)).isTrue();
        assertThat(fromGraph.aligns(plainNode)).isFalse();
    }
}
