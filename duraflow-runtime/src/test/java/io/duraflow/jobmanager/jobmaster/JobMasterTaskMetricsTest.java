package io.duraflow.jobmanager.jobmaster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.duraflow.jobmanager.resourcemanager.RecordingGateways.Deployment;
import io.duraflow.rpc.proto.AttemptId;
import io.duraflow.rpc.proto.TaskMetricsSample;
import io.duraflow.rpc.proto.VertexStatus;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Heartbeat samples of running streaming tasks become the rates and counts of {@code JobMaster#status()}. */
class JobMasterTaskMetricsTest {
    private static final long SECOND = 1_000_000_000L;

    @TempDir
    Path root;

    private FakeCluster allRunning() {
        RecordingSequenceSource.clear();
        FakeCluster cluster = new FakeCluster(StreamingJobMasterTest.streamingJob(), FakeCluster.SETTINGS,
                FakeSlotPool.of(2, 4), FakeCluster.SESSION);
        cluster.startStreaming();
        cluster.live().forEach(cluster::running);
        cluster.scheduler.runDue();
        return cluster;
    }

    private static TaskMetricsSample sample(long atNanos, long in, long out, long backpressuredNanos) {
        return TaskMetricsSample.newBuilder().setSampledAtNanos(atNanos).setRecordsIn(in).setRecordsOut(out)
                .setBackpressuredNanos(backpressuredNanos).build();
    }

    @Test
    void twoSamplesOfEachRunningSubtaskGiveItsVertexRatesAndItsRecordsSoFar() {
        FakeCluster cluster = allRunning();
        for (Deployment d : cluster.live(0)) {
            cluster.job.onTaskMetrics(d.attempt(), sample(0, 0, 0, 0));
            cluster.job.onTaskMetrics(d.attempt(), sample(2 * SECOND, 4_000, 4_000, SECOND));
        }

        VertexStatus source = cluster.job.status().getVertices(0);

        assertThat(source.getRates().getSubtasks()).isEqualTo(2);
        assertThat(source.getRates().getRecordsOutPerSecond()).isCloseTo(4_000, within(1e-6));
        assertThat(source.getRates().getBackpressuredMsPerSecond()).isCloseTo(500, within(1e-6));
        assertThat(source.getRates().getBusyMsPerSecond()).isCloseTo(500, within(1e-6));
        assertThat(source.getRecordsOut()).isEqualTo(8_000);
        assertThat(cluster.job.status().getVertices(1).hasRates()).as("no samples yet").isFalse();
    }

    @Test
    void aSampleOfAnAttemptThatIsNotCurrentIsIgnored() {
        FakeCluster cluster = allRunning();
        AttemptId current = cluster.live(0).get(0).attempt();
        AttemptId stale = current.toBuilder().setAttempt(current.getAttempt() + 1).build();

        cluster.job.onTaskMetrics(stale, sample(0, 0, 0, 0));
        cluster.job.onTaskMetrics(stale, sample(SECOND, 10, 10, 0));

        assertThat(cluster.job.status().getVertices(0).hasRates()).isFalse();
        assertThat(cluster.job.status().getVertices(0).getRecordsOut()).isZero();
    }
}
