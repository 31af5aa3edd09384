package io.duraflow.jobmanager.jobmaster.coordination;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.api.JobBuilder;
import io.duraflow.api.connectors.DataGeneratorSource;
import io.duraflow.api.eventtime.WatermarkStrategy;
import io.duraflow.api.types.Types;
import io.duraflow.config.RuntimeMode;
import io.duraflow.jobmanager.jobmaster.execution.Execution;
import io.duraflow.jobmanager.jobmaster.execution.ExecutionGraph;
import io.duraflow.jobmanager.jobmaster.execution.ExecutionState;
import io.duraflow.jobmanager.jobmaster.execution.JobEventLog;
import io.duraflow.jobmanager.resourcemanager.RecordingGateways;
import io.duraflow.mailbox.ManualMailbox;
import io.duraflow.plan.JobGraph;
import io.duraflow.plan.JobVertex;
import io.duraflow.rpc.proto.OperatorEvent;
import io.duraflow.rpc.proto.ReportedWatermark;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Reports of aligned readers through {@link CoordinatorHolder}: answered across the sources of a
 * group, unordered, to running attempts only; finished and restarted readers no longer count.
 */
class CoordinatorHolderAlignmentTest {
    private final RecordingGateways gateways = new RecordingGateways(new ManualMailbox());
    private final JobGraph graph = graph();
    private final ExecutionGraph executions = new ExecutionGraph("job-1", graph);
    private final CoordinatorHolder holder = new CoordinatorHolder(executions, () -> JobEventLog.NONE, gateways);
    private final JobVertex fast = vertex("fast");
    private final JobVertex slow = vertex("slow");

    private static JobGraph graph() {
        JobBuilder job = new JobBuilder("aligned");
        WatermarkStrategy<Long> aligned = WatermarkStrategy.<Long>forMonotonousTimestamps()
                .withAlignment("g", Duration.ofSeconds(1));
        var fast = job.fromSource("fast", DataGeneratorSource.of("f", Types.LONG, i -> i), aligned).parallelism(2);
        var slow = job.fromSource("slow", DataGeneratorSource.of("s", Types.LONG, i -> i), aligned).parallelism(1);
        fast.union(slow).collect("out");
        return JobGraph.compile(job.plan(), 2, RuntimeMode.STREAMING);
    }

    private JobVertex vertex(String name) {
        return graph.vertices().stream().filter(v -> v.head().name().equals(name)).findFirst().orElseThrow();
    }

    private void running(JobVertex vertex, int subtask) {
        Execution execution = executions.executions(vertex.id())[subtask];
        execution.assign("tm-1", "localhost:1");
        execution.transition(ExecutionState.DEPLOYING, "test");
        execution.transition(ExecutionState.RUNNING, "test");
    }

    private void report(JobVertex vertex, int subtask, long watermark) throws Exception {
        holder.handleEvent(vertex.head().id(), subtask, OperatorEvent.newBuilder()
                .setReportedWatermark(ReportedWatermark.newBuilder().setWatermark(watermark)).build());
    }

    /** The minimum announced to each attempt, in order. */
    private List<Long> announcedTo(JobVertex vertex, int subtask) {
        return gateways.eventsTo(executions.executions(vertex.id())[subtask].attemptId()).stream()
                .peek(event -> assertThat(event.sequence()).as("announcements are unordered").isZero())
                .map(event -> event.event().getWatermarkAlignment().getGroupMinWatermark()).toList();
    }

    @Test
    void aReportIsAnsweredWithTheMinimumOverTheSourcesOfTheGroup() throws Exception {
        running(fast, 0);
        running(fast, 1);
        running(slow, 0);
        report(fast, 0, 50_000);
        report(slow, 0, 10_000);
        report(fast, 1, 60_000);
        report(fast, 0, 51_000);

        assertThat(announcedTo(fast, 0)).containsExactly(50_000L, 10_000L);
        assertThat(announcedTo(slow, 0)).containsExactly(10_000L);
        assertThat(announcedTo(fast, 1)).containsExactly(10_000L);
    }

    @Test
    void finishedAndRestartedReadersNoLongerHoldTheGroup() throws Exception {
        running(fast, 0);
        running(slow, 0);
        report(slow, 0, 10_000);
        report(fast, 0, 50_000);
        holder.subtaskFinished(slow.id(), 0);
        report(fast, 0, 51_000);
        report(slow, 0, 11_000); // the slow reader runs again: a restart forgets it with the others
        holder.resetForRestart(0, Map.of());
        report(fast, 0, 52_000);

        assertThat(announcedTo(fast, 0)).containsExactly(10_000L, 51_000L, 52_000L);
    }

    @Test
    void anAttemptThatDoesNotRunGetsNoAnswer() throws Exception {
        report(fast, 1, 5_000);

        assertThat(gateways.events()).isEmpty();
    }
}
