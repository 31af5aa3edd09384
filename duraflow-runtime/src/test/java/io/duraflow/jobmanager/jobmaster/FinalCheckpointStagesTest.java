package io.duraflow.jobmanager.jobmaster;

import static io.duraflow.jobmanager.jobmaster.StreamingJobMasterTest.ackAll;
import static io.duraflow.jobmanager.jobmaster.StreamingJobMasterTest.allRunning;
import static io.duraflow.jobmanager.jobmaster.StreamingJobMasterTest.triggered;
import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.api.JobBuilder;
import io.duraflow.api.types.Types;
import io.duraflow.config.RuntimeMode;
import io.duraflow.jobmanager.resourcemanager.RecordingGateways.Deployment;
import io.duraflow.plan.JobGraph;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Final checkpoints of a bounded streaming job of three stages, each ended by the one before. */
class FinalCheckpointStagesTest {
    private static final int SOURCES = 0;
    private static final int FIRST = 1;
    private static final int SECOND = 2;

    @TempDir
    Path root;

    /** source (2) -> keyed reduce (3) -> keyed reduce (2) -> collect. */
    private static JobGraph threeStages() {
        JobBuilder job = new JobBuilder("three-stages");
        job.fromSource("numbers", new RecordingSequenceSource(0, 100, 2)).parallelism(2)
                .keyBy(n -> n % 10, Types.LONG).reduce(Long::sum).parallelism(3)
                .keyBy(n -> n % 3, Types.LONG).reduce(Long::sum).parallelism(2)
                .collect("sums");
        return JobGraph.compile(job.plan(), 2, RuntimeMode.STREAMING);
    }

    /**
     * Found on Nexmark q7 (bids, windows per auction, then per window): once the sources finished,
     * the first windows ended their input, yet the final checkpoint that lets them finish waited
     * for the second stage to end its input too, which it cannot before the first finishes; the
     * periodic checkpoint came up to an interval later. The checkpoint is due once every task it
     * starts at has ended its input. (Here, as there, one source ends and is finished by a
     * periodic checkpoint before the other ends.)
     */
    @Test
    void eachStageIsFinishedByACheckpointTriggeredOnceItEndedItsInputNotAtTheNextInterval() {
        RecordingSequenceSource.clear();
        FakeCluster cluster = new FakeCluster(threeStages(), FakeCluster.SETTINGS, FakeSlotPool.of(2, 4),
                FakeCluster.SESSION);
        cluster.enableCheckpoints(root);
        cluster.startStreaming();
        assertThat(cluster.graph.vertices()).hasSize(3);
        allRunning(cluster);
        Deployment early = cluster.current(SOURCES, 0);
        Deployment late = cluster.current(SOURCES, 1);
        cluster.job.onInputEnded(early.attempt());
        cluster.scheduler.advance(FakeCluster.CHECKPOINT_INTERVAL_MS);
        assertThat(triggered(cluster, 1)).as("the periodic checkpoint").hasSize(2);
        ackAll(cluster, 1);
        cluster.finish(early);
        cluster.job.onInputEnded(late.attempt());
        cluster.scheduler.runDue();
        assertThat(triggered(cluster, 2)).as("the last source's final checkpoint").containsExactly(late);
        ackAll(cluster, 2);
        cluster.finish(late);
        long sourcesFinishedAt = cluster.scheduler.now();

        List<Deployment> first = cluster.live(FIRST);
        first.forEach(d -> cluster.job.onInputEnded(d.attempt()));
        cluster.scheduler.runDue();
        assertThat(triggered(cluster, 3)).as("at once, at the first stage, the second still running")
                .containsExactlyInAnyOrderElementsOf(first);
        ackAll(cluster, 3);
        first.forEach(cluster::finish);

        List<Deployment> second = cluster.live(SECOND);
        second.forEach(d -> cluster.job.onInputEnded(d.attempt()));
        cluster.scheduler.runDue();
        assertThat(triggered(cluster, 4)).containsExactlyInAnyOrderElementsOf(second);
        ackAll(cluster, 4);
        second.forEach(cluster::finish);
        assertThat(cluster.job.state()).isEqualTo(JobMasterState.FINISHED);
        assertThat(cluster.scheduler.now()).as("no interval waited for after the sources")
                .isEqualTo(sourcesFinishedAt);
        assertThat(cluster.gateways.triggers()).as("no checkpoint but these four")
                .allMatch(t -> t.request().getCheckpointId() <= 4);
    }
}
